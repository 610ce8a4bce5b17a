/**
 * The first run's words (issue 18): provider types, fields and capabilities in plain words,
 * the local set-up, the first Kin's starter prompts, the "Advanced" disclosures.
 * The server names types, fields and capabilities by id; these are their names for people.
 */
export const en = {
  firstRun: {
    capabilities: { llm: "chat model", embedding: "memory search", image: "images", search: "web search" },
    types: {
      openai: "OpenAI (ChatGPT)",
      anthropic: "Anthropic (Claude)",
      gemini: "Google Gemini",
      "openai-compatible": "Ollama, LM Studio or another OpenAI-compatible server",
      voyage: "Voyage AI (memory search only)",
      "local-embeddings": "Memory search on this computer",
      brave: "Brave Search",
      searxng: "SearXNG (your own search server)",
    },
    defaultNames: { "openai-compatible": "Local models", "local-embeddings": "Local memory" },
    gives: "Gives: {{capabilities}}.",
    needsAccount: "Needs an account with the provider (an API key).",
    noAccount: "No account needed.",
    nameHint: "Leave empty to call it “{{name}}”.",
    fields: { api_key: "API key", base_url: "Server address", embedding_model: "Memory search model", image_model: "Image model", model: "Memory search model", context_window: "Context window (tokens)" },
    hints: {
      baseUrlOptional: "Leave empty to use the service's own address.",
      baseUrlRequired: "Its address, starting with http:// or https://.",
      optionalDefault: "Leave empty to use {{value}}.",
      optionalKey: "Only if your server asks for one.",
      "openai-compatible": {
        base_url: "Ollama's usual address is filled in; LM Studio's is usually http://127.0.0.1:1234/v1.",
        embedding_model: "Leave empty to use the first model whose name contains “embed”.",
        context_window: "Leave empty to use what the server says (llama.cpp, Ollama, vLLM, LM Studio). Give it when the server does not say it, e.g. 8192.",
      },
      searxng: { base_url: "The address of your SearXNG server, starting with http:// or https://." },
    },
    local: {
      title: "No account? Everything on this computer",
      text: "Chat with the models of Ollama or LM Studio running on this machine or your network, and keep memory search on this computer. No account, no API key.",
      address: "Address of Ollama or LM Studio",
      use: "Use local models",
      working: "Setting up…",
      done: "Local models and memory search are set up.",
    },
    starter: {
      greeting: "Hello, I'm {{name}}!",
      intro: "Where shall we start? Pick an idea or write your own message.",
      prompts: "Ideas to start with",
      withTopic: ["What can you do for me with {{topic}}?", "Give me an easy first idea for {{topic}}.", "Ask me three questions so you can help me better with {{topic}}."],
      generic: ["What can you do for me?", "Give me an easy first idea.", "Ask me three questions so you can help me better."],
    },
    advanced: "Advanced",
    noKins: {
      title: "No Kins yet",
      text: "A Kin is an expert with its own personality and memory. Create the first one to start talking.",
      create: "Create a Kin",
    },
  },
};

export const fr: typeof en = {
  firstRun: {
    capabilities: { llm: "modèle de conversation", embedding: "recherche dans la mémoire", image: "images", search: "recherche web" },
    types: {
      openai: "OpenAI (ChatGPT)",
      anthropic: "Anthropic (Claude)",
      gemini: "Google Gemini",
      "openai-compatible": "Ollama, LM Studio ou un autre serveur compatible OpenAI",
      voyage: "Voyage AI (recherche dans la mémoire seulement)",
      "local-embeddings": "Recherche dans la mémoire sur cet ordinateur",
      brave: "Brave Search",
      searxng: "SearXNG (votre propre serveur de recherche)",
    },
    defaultNames: { "openai-compatible": "Modèles locaux", "local-embeddings": "Mémoire locale" },
    gives: "Apporte : {{capabilities}}.",
    needsAccount: "Demande un compte chez le fournisseur (une clé d'API).",
    noAccount: "Aucun compte nécessaire.",
    nameHint: "Laissez vide pour l'appeler « {{name}} ».",
    fields: { api_key: "Clé d'API", base_url: "Adresse du serveur", embedding_model: "Modèle de recherche dans la mémoire", image_model: "Modèle d'images", model: "Modèle de recherche dans la mémoire", context_window: "Fenêtre de contexte (jetons)" },
    hints: {
      baseUrlOptional: "Laissez vide pour utiliser l'adresse du service.",
      baseUrlRequired: "Son adresse, qui commence par http:// ou https://.",
      optionalDefault: "Laissez vide pour utiliser {{value}}.",
      optionalKey: "Seulement si votre serveur en demande une.",
      "openai-compatible": {
        base_url: "L'adresse habituelle d'Ollama est déjà remplie ; celle de LM Studio est en général http://127.0.0.1:1234/v1.",
        embedding_model: "Laissez vide pour utiliser le premier modèle dont le nom contient « embed ».",
        context_window: "Laissez vide pour utiliser ce qu'indique le serveur (llama.cpp, Ollama, vLLM, LM Studio). Indiquez-la quand le serveur ne le dit pas, par exemple 8192.",
      },
      searxng: { base_url: "L'adresse de votre serveur SearXNG, qui commence par http:// ou https://." },
    },
    local: {
      title: "Pas de compte ? Tout sur cet ordinateur",
      text: "Discutez avec les modèles d'Ollama ou de LM Studio qui tournent sur cette machine ou votre réseau, et gardez la recherche dans la mémoire sur cet ordinateur. Sans compte ni clé d'API.",
      address: "Adresse d'Ollama ou de LM Studio",
      use: "Utiliser les modèles locaux",
      working: "Mise en place…",
      done: "Les modèles locaux et la recherche dans la mémoire sont prêts.",
    },
    starter: {
      greeting: "Bonjour, je suis {{name}} !",
      intro: "Par quoi commençons-nous ? Choisissez une idée ou écrivez votre propre message.",
      prompts: "Des idées pour commencer",
      withTopic: ["Que peux-tu faire pour moi côté {{topic}} ?", "Donne-moi une première idée facile côté {{topic}}.", "Pose-moi trois questions pour mieux m'aider côté {{topic}}."],
      generic: ["Que peux-tu faire pour moi ?", "Donne-moi une première idée facile.", "Pose-moi trois questions pour mieux m'aider."],
    },
    advanced: "Avancé",
    noKins: {
      title: "Pas encore de Kin",
      text: "Un Kin est un expert avec sa propre personnalité et sa mémoire. Créez le premier pour commencer à discuter.",
      create: "Créer un Kin",
    },
  },
};
