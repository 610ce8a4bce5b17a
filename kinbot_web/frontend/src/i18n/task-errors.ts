/**
 * Why a task failed or was cancelled, worded from its `error_code` (docs/api.md, tasks).
 *
 * tests/test_error_codes.py reads this file: every code a task can end with (the task codes of
 * kinbot_core/tasks/records.py and a failed turn's codes of kinbot_core/kins/meta.py) needs its
 * sentence here, in both languages. Keep `codes` flat, one `code: "sentence",` per line.
 */

export const en = {
  taskErrors: {
    codes: {
      task_cancelled_by_user: "Cancelled by a member of the family.",
      task_cancelled_by_parent: "Cancelled by the Kin that asked for it.",
      task_parent_ended: "Stopped because the task it was part of ended.",
      task_gave_up: "The Kin doing it gave up.",
      task_no_result: "The Kin doing it stopped without giving a result.",
      task_restarted: "KinBot restarted while the task was running, and its work could not go on.",
      provider_unreachable: "The Kin doing it could not reach its AI provider.",
      provider_failed: "The AI provider failed to answer the Kin doing it.",
      provider_rate_limited: "The AI provider was busy: too many requests.",
      provider_auth_failed: "The AI provider refused its key: an administrator should check it in the settings.",
      model_unavailable: "The model of the Kin doing it is not available at its AI provider.",
      internal_error: "Something went wrong on KinBot's side while the task was running.",
      turn_stopped: "The work of the Kin doing it was interrupted.",
      budget_reached: "The monthly budget of the Kin is spent: the work did not start.",
      context_overflow: "The work no longer fit the context window of the model of the Kin doing it.",
      model_not_loaded: "The model of the Kin doing it was not ready on its server.",
      provider_starting: "The server of the model of the Kin doing it was still starting.",
    },
    unknown: "The task did not finish.",
    providerSaid: "The provider said: {{detail}}",
    kinSaid: "The Kin said: {{detail}}",
  },
};

export const fr: typeof en = {
  taskErrors: {
    codes: {
      task_cancelled_by_user: "Annulée par un membre de la famille.",
      task_cancelled_by_parent: "Annulée par le Kin qui l'avait demandée.",
      task_parent_ended: "Arrêtée parce que la tâche dont elle faisait partie s'est terminée.",
      task_gave_up: "Le Kin qui s'en chargeait a abandonné.",
      task_no_result: "Le Kin qui s'en chargeait s'est arrêté sans donner de résultat.",
      task_restarted: "KinBot a redémarré pendant la tâche, et son travail n'a pas pu reprendre.",
      provider_unreachable: "Le Kin qui s'en chargeait n'a pas pu joindre son fournisseur d'IA.",
      provider_failed: "Le fournisseur d'IA n'a pas su répondre au Kin qui s'en chargeait.",
      provider_rate_limited: "Le fournisseur d'IA était saturé : trop de requêtes.",
      provider_auth_failed: "Le fournisseur d'IA a refusé sa clé : un administrateur doit la vérifier dans les réglages.",
      model_unavailable: "Le modèle du Kin qui s'en chargeait n'est pas disponible chez son fournisseur d'IA.",
      internal_error: "Un problème est survenu du côté de KinBot pendant la tâche.",
      turn_stopped: "Le travail du Kin qui s'en chargeait a été interrompu.",
      budget_reached: "Le budget mensuel du Kin est épuisé : le travail n'a pas commencé.",
      context_overflow: "Le travail ne tenait plus dans la fenêtre de contexte du modèle du Kin qui s'en chargeait.",
      model_not_loaded: "Le modèle du Kin qui s'en chargeait n'était pas prêt sur son serveur.",
      provider_starting: "Le serveur du modèle du Kin qui s'en chargeait était encore en train de démarrer.",
    },
    unknown: "La tâche ne s'est pas terminée.",
    providerSaid: "Le fournisseur a répondu : {{detail}}",
    kinSaid: "Le Kin a dit : {{detail}}",
  },
};
