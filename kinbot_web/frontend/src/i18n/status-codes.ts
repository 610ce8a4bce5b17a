/** How an MCP server's health and a plugin's load failure read (their `error_code`s). */
export const en = {
  statusCodes: {
    mcp: {
      mcp_no_answer: "No answer within {{seconds}} seconds.",
      mcp_failed: "Could not connect.",
      mcp_command_not_found: "The command “{{command}}” was not found where KinBot runs. Check its name and that it is installed there.",
      mcp_command_not_runnable: "The command “{{command}}” cannot be run. Check that it is a program and that KinBot's user may execute it.",
      mcp_unreachable: "The server at this URL cannot be reached. Check the URL and that the server is running.",
      mcp_tls_failed: "The secure connection (TLS) failed. Check whether the URL should start with http or https, and the server's certificate.",
      mcp_unauthorized: "The server refused KinBot's credentials. Check the authorization headers.",
      mcp_not_found: "No MCP server answers at this URL. Check its path (often /mcp).",
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
      mcp_command_not_found: "La commande « {{command}} » est introuvable sur le serveur KinBot. Vérifiez son nom et qu'elle y est bien installée.",
      mcp_command_not_runnable: "La commande « {{command}} » ne peut pas être lancée. Vérifiez que c'est bien un programme et que l'utilisateur de KinBot a le droit de l'exécuter.",
      mcp_unreachable: "Le serveur à cette URL est injoignable. Vérifiez l'URL et que le serveur est démarré.",
      mcp_tls_failed: "La connexion sécurisée (TLS) a échoué. Vérifiez si l'URL doit commencer par http ou https, et le certificat du serveur.",
      mcp_unauthorized: "Le serveur a refusé les identifiants de KinBot. Vérifiez les en-têtes d'autorisation.",
      mcp_not_found: "Aucun serveur MCP ne répond à cette URL. Vérifiez son chemin (souvent /mcp).",
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
