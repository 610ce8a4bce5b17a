/** How an MCP server's health and a plugin's load failure read (their `error_code`s). */
export const en = {
  statusCodes: {
    mcp: {
      mcp_no_answer: "No answer within {{seconds}} seconds.",
      mcp_failed: "Could not connect.",
      mcp_reconnecting: "Reconnecting…",
      mcp_health_failed: "It stopped answering its health check.",
      mcp_closed: "It closed the connection (it may have crashed).",
      mcp_settings_unreadable: "Its environment values or headers were saved under another master key (a backup restored without its key): enter them again, or put the original key back.",
      said: "{{problem}} It said: {{detail}}",
    },
    plugin: {
      plugin_load_failed: "This plugin could not be loaded.",
      plugin_unknown_hook: "This plugin uses a hook KinBot does not know, so it is turned off.",
      details: "Details for its author: {{error}}",
    },
  },
};

export const fr: typeof en = {
  statusCodes: {
    mcp: {
      mcp_no_answer: "Pas de réponse en {{seconds}} secondes.",
      mcp_failed: "Connexion impossible.",
      mcp_reconnecting: "Reconnexion…",
      mcp_health_failed: "Il ne répond plus au contrôle de santé.",
      mcp_closed: "Il a fermé la connexion (il a peut-être planté).",
      mcp_settings_unreadable: "Ses variables d'environnement ou ses en-têtes ont été chiffrés avec une autre clé maîtresse (une sauvegarde restaurée sans sa clé) : saisissez-les à nouveau, ou remettez la clé d'origine.",
      said: "{{problem}} Il a dit : {{detail}}",
    },
    plugin: {
      plugin_load_failed: "Ce plugin n'a pas pu être chargé.",
      plugin_unknown_hook: "Ce plugin utilise un hook que KinBot ne connaît pas : il est désactivé.",
      details: "Détails pour son auteur : {{error}}",
    },
  },
};
