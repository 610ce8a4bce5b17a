/** Strings of a model's context window in a Kin's settings (the `contextWindow` namespace; en is the reference, fr has the same keys). */

export const en = {
  contextWindow: {
    title: "Context window",
    tokens: "{{tokens}} tokens",
    value: "{{tokens}} tokens, {{source}}",
    hint: "How much of the conversation {{name}}'s model can read in one go: KinBot keeps each request within it.",
    sources: {
      server: "reported by the server",
      provider: "from the provider's information on the model",
      known_model: "from KinBot's list of known models",
      admin: "set by an administrator",
      fallback: "assumed: neither the server nor KinBot knows it",
    },
    setIt: "The server does not say it: an administrator can give it here or in the provider's settings.",
    raiseIt: "To give the model more room, start its server with a larger context size (llama.cpp: -c; Ollama: num_ctx; LM Studio: the model's context length), then save the provider in Settings.",
    byHand: "Set by hand",
    byHandHint: "For a server that does not say it: give the size the server really runs the model with, not the model's advertised maximum, or requests may be cut or refused.",
    field: "Window of {{model}} (tokens)",
    save: "Save the window",
    clear: "Use what the server says",
    saved: "Context window saved",
    cleared: "The server's figure is in force again",
  },
};

export const fr: typeof en = {
  contextWindow: {
    title: "Fenêtre de contexte",
    tokens: "{{tokens}} jetons",
    value: "{{tokens}} jetons ({{source}})",
    hint: "La part de la conversation que le modèle {{name, de}} peut lire d'un coup : KinBot y fait tenir chaque requête.",
    sources: {
      server: "chiffre fourni par le serveur",
      provider: "d'après les informations du fournisseur sur le modèle",
      known_model: "d'après la liste des modèles connus de KinBot",
      admin: "chiffre fixé par un administrateur",
      fallback: "supposée : ni le serveur ni KinBot ne la connaissent",
    },
    setIt: "Le serveur ne l'indique pas : un administrateur peut la donner ici ou dans les réglages du fournisseur.",
    raiseIt: "Pour donner plus de place au modèle, démarrez son serveur avec une taille de contexte plus grande (llama.cpp : -c ; Ollama : num_ctx ; LM Studio : la longueur de contexte du modèle), puis enregistrez le fournisseur dans les Réglages.",
    byHand: "Fixer à la main",
    byHandHint: "Pour un serveur qui ne l'indique pas : donnez la taille avec laquelle le serveur fait vraiment tourner le modèle, pas le maximum annoncé du modèle, sinon des requêtes pourraient être tronquées ou refusées.",
    field: "Fenêtre {{model, de}} (jetons)",
    save: "Enregistrer la fenêtre",
    clear: "Utiliser le chiffre du serveur",
    saved: "Fenêtre de contexte enregistrée",
    cleared: "Le chiffre du serveur s'applique de nouveau",
  },
};
