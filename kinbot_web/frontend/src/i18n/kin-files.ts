/** Strings of exporting a Kin as a file (its settings) and importing one (the new Kin dialog). */

export const en = {
  kinFiles: {
    exportTitle: "Export this Kin",
    exportHint: "One file with {{name}}'s identity, character, expertise, avatar, memories, contacts, crons and custom tools, to import into this or another KinBot. It holds no secret and not the conversation.",
    exportButton: "Download the Kin file",
    importOpen: "Import a Kin from a file",
    importTitle: "Import a Kin",
    importHint: "A file exported from a Kin's settings. Its crons arrive paused: activate them in the new Kin's settings. Its custom tools run confined, without network.",
    file: "Kin file",
    model: "Model",
    fileModel: "The model in the file",
    importButton: "Import",
    importing: "Importing…",
    imported: "{{name}} is imported. Memories: {{memories}} · contacts: {{contacts}} · crons, paused: {{crons}} · custom tools: {{tools}}.",
  },
};

export const fr: typeof en = {
  kinFiles: {
    exportTitle: "Exporter ce Kin",
    exportHint: "Un fichier avec l'identité, le caractère, l'expertise, l'avatar, les souvenirs, les contacts, les crons et les outils personnalisés {{name, de}}, à importer dans ce KinBot ou un autre. Il ne contient aucun secret ni la conversation.",
    exportButton: "Télécharger le fichier du Kin",
    importOpen: "Importer un Kin depuis un fichier",
    importTitle: "Importer un Kin",
    importHint: "Un fichier exporté depuis les réglages d'un Kin. Ses crons arrivent en pause : activez-les dans les réglages du nouveau Kin. Ses outils personnalisés s'exécutent confinés, sans réseau.",
    file: "Fichier du Kin",
    model: "Modèle",
    fileModel: "Le modèle du fichier",
    importButton: "Importer",
    importing: "Import en cours…",
    imported: "{{name}} est importé. Souvenirs : {{memories}} · contacts : {{contacts}} · crons, en pause : {{crons}} · outils personnalisés : {{tools}}.",
  },
};
