/** Strings of settings forms generated from a schema (a plugin's settings, a channel's). */
export const en = {
  pluginSettings: {
    open: "Settings",
    openFor: "Settings of {{name}}",
    title: "Settings of {{name}}",
    description: "What the plugin may be told. Secrets are stored encrypted and never shown again.",
    saving: "Saving…",
    saved: "Settings saved.",
    loadError: "The settings could not be loaded: {{error}}",
    form: {
      secretSet: "Set",
      secretNotSet: "Not set",
      replace: "Replace",
      setSecret: "Enter a value",
      keep: "Keep the current one",
      clear: "Remove",
      willClear: "Will be removed",
      undo: "Undo",
      none: "None",
    },
  },
};

export const fr = {
  pluginSettings: {
    open: "Réglages",
    openFor: "Réglages {{name, de}}",
    title: "Réglages {{name, de}}",
    description: "Ce que l'on peut indiquer au plugin. Les secrets sont chiffrés et ne sont plus jamais affichés.",
    saving: "Enregistrement…",
    saved: "Réglages enregistrés.",
    loadError: "Les réglages n'ont pas pu être chargés : {{error}}",
    form: {
      secretSet: "Défini",
      secretNotSet: "Non défini",
      replace: "Remplacer",
      setSecret: "Saisir une valeur",
      keep: "Garder l'actuel",
      clear: "Supprimer",
      willClear: "Sera supprimé",
      undo: "Annuler",
      none: "Aucun",
    },
  },
};
