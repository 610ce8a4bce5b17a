"""Export one Kin as a single file and import it into a platform (the same or another one).

The file is a zip archive (``archive``) holding a manifest and JSON documents (``documents``):
the Kin's identity, character and expertise, its memories, contacts, crons and custom tools
(with their scripts), and its avatar. Secrets (vault values, provider keys), the session's
messages and other Kins' data are never in it. ``exporter`` writes it; ``importer`` checks
every part of it within fixed bounds and creates a new Kin from it: memories embedded again
with the target's embedding model, crons paused, network access off.
"""

from kinbot_core.kin_export.errors import KinArchiveError
from kinbot_core.kin_export.exporter import export_kin
from kinbot_core.kin_export.importer import ImportedKin, import_kin

__all__ = ["ImportedKin", "KinArchiveError", "export_kin", "import_kin"]
