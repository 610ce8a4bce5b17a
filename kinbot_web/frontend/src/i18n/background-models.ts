/** Strings of the platform's models of background work (Settings → AI providers, issue 23). */
export const en = {
  backgroundModels: {
    title: "Models of background work",
    intro: "Kins pick out memories from their conversations and summarise the long ones in the background, often. By default this runs on the cheapest capable model of each Kin's provider, which does it well for a small part of a large model's price. Each Kin's own model may do slightly better, at its full price on every call. A Kin's settings can still choose otherwise.",
    extraction: "Memory extraction model",
    compacting: "Compacting model",
    cheapest: "Cheapest model of each Kin's provider (recommended)",
    own: "Each Kin's own model",
    lightMark: "{{label}} · cheapest of {{provider}}",
    unlisted: "{{model}} (not listed any more)",
    fromConfig: "Set in the server's configuration until you save a choice here.",
    save: "Save",
    saved: "Models of background work saved",
  },
};

export const fr: typeof en = {
  backgroundModels: {
    title: "Modèles du travail en arrière-plan",
    intro: "Les Kins retiennent des souvenirs de leurs conversations et résument les longues en arrière-plan, souvent. Par défaut, cela se fait avec le modèle capable le moins cher du fournisseur de chaque Kin, qui le fait bien pour une petite partie du prix d'un grand modèle. Le modèle propre à chaque Kin peut faire un peu mieux, à son plein prix à chaque appel. Les réglages d'un Kin peuvent toujours choisir autrement.",
    extraction: "Modèle d'extraction des souvenirs",
    compacting: "Modèle des résumés de conversation",
    cheapest: "Le modèle le moins cher du fournisseur de chaque Kin (recommandé)",
    own: "Le modèle propre à chaque Kin",
    lightMark: "{{label}} · le moins cher chez {{provider}}",
    unlisted: "{{model}} (plus proposé)",
    fromConfig: "Fixé par la configuration du serveur tant que vous n'enregistrez pas de choix ici.",
    save: "Enregistrer",
    saved: "Modèles du travail en arrière-plan enregistrés",
  },
};
