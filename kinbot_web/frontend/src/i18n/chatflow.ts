/** Strings of the chat's flow: unread counts, the new-messages marker, history search. */
export const en = {
  chatflow: {
    newMessages_one: "{{count}} new message below",
    newMessages_other: "{{count}} new messages below",
    newBelow: "New messages below",
    backToLatest: "Back to the latest messages",
    loadNewer: "Load later messages",
    unread_one: "{{count}} unread message",
    unread_other: "{{count}} unread messages",
    search: {
      open: "Search this chat",
      title: "Search {{name}}'s chat",
      description: "Find what was said, even long ago, by words or by meaning.",
      label: "Search for",
      placeholder: "A word, a dish, a date…",
      submit: "Search",
      searching: "Searching…",
      none: "Nothing in this chat matches “{{query}}”.",
      failed: "The search failed: {{error}}",
      results_one: "{{count}} result",
      results_other: "{{count}} results",
      open_result: "Show this message in the chat",
    },
  },
};

export const fr: typeof en = {
  chatflow: {
    newMessages_one: "{{count}} nouveau message plus bas",
    newMessages_other: "{{count}} nouveaux messages plus bas",
    newBelow: "Nouveaux messages plus bas",
    backToLatest: "Revenir aux derniers messages",
    loadNewer: "Charger les messages suivants",
    unread_one: "{{count}} message non lu",
    unread_other: "{{count}} messages non lus",
    search: {
      open: "Rechercher dans cette conversation",
      title: "Rechercher dans la conversation avec {{name}}",
      description: "Retrouvez ce qui a été dit, même il y a longtemps, par les mots ou par le sens.",
      label: "Rechercher",
      placeholder: "Un mot, un plat, une date…",
      submit: "Rechercher",
      searching: "Recherche…",
      none: "Rien dans cette conversation ne correspond à « {{query}} ».",
      failed: "La recherche a échoué : {{error}}",
      results_one: "{{count}} résultat",
      results_other: "{{count}} résultats",
      open_result: "Afficher ce message dans la conversation",
    },
  },
};
