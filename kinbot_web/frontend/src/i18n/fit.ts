/** Strings of a turn that failed on the model's context window or its server (issue 21). The
 * chat's error card words these codes of a failed turn's meta; numbers arrive formatted. The
 * titles are the sidebar's short words for a Kin whose last turn failed so. */
export const en = {
  fit: {
    error: {
      context_overflow: "{{name}}'s model has a {{window}}-token window; KinBot needs about {{needed}} for this turn: raise the model's context size or choose a larger model.",
      context_overflow_window: "{{name}}'s model has a {{window}}-token window, too small for this turn: raise the model's context size or choose a larger model.",
      context_overflow_unknown: "This turn is too long for the context window of {{name}}'s model: raise the model's context size or choose a larger model.",
      model_not_loaded: "{{name}}'s model {{model}} is not ready on its server: pull or load it there (with Ollama: ollama pull {{model}}), or choose another model.",
      model_not_loaded_unnamed: "{{name}}'s model is not ready on its server: pull or load it there, or choose another model.",
      provider_starting: "{{name}}'s model server is still starting (loading the model): try again in a moment.",
    },
    seeWindow: "See {{name}}'s context window",
    title: {
      context_overflow: "{{name}}'s last turn did not fit its model's context window.",
      model_not_loaded: "{{name}}'s model is not ready on its server.",
      provider_starting: "{{name}}'s model server was still starting.",
    },
  },
};

export const fr: typeof en = {
  fit: {
    error: {
      context_overflow: "Le modèle {{name, de}} a une fenêtre de {{window}} jetons ; KinBot en a besoin d'environ {{needed}} pour ce tour : augmentez la taille de contexte du modèle ou choisissez un modèle plus grand.",
      context_overflow_window: "Le modèle {{name, de}} a une fenêtre de {{window}} jetons, trop petite pour ce tour : augmentez la taille de contexte du modèle ou choisissez un modèle plus grand.",
      context_overflow_unknown: "Ce tour est trop long pour la fenêtre de contexte du modèle {{name, de}} : augmentez la taille de contexte du modèle ou choisissez un modèle plus grand.",
      model_not_loaded: "Le modèle {{model}} {{name, de}} n'est pas prêt sur son serveur : téléchargez-le ou chargez-le là-bas (avec Ollama : ollama pull {{model}}), ou choisissez un autre modèle.",
      model_not_loaded_unnamed: "Le modèle {{name, de}} n'est pas prêt sur son serveur : téléchargez-le ou chargez-le là-bas, ou choisissez un autre modèle.",
      provider_starting: "Le serveur du modèle {{name, de}} est encore en train de démarrer (il charge le modèle) : réessayez dans un instant.",
    },
    seeWindow: "Voir la fenêtre de contexte {{name, de}}",
    title: {
      context_overflow: "Le dernier tour {{name, de}} ne tenait pas dans la fenêtre de contexte de son modèle.",
      model_not_loaded: "Le modèle {{name, de}} n'est pas prêt sur son serveur.",
      provider_starting: "Le serveur du modèle {{name, de}} était encore en train de démarrer.",
    },
  },
};
