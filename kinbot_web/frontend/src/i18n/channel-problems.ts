/** What went wrong with a messaging channel, worded per channel type (`telegram`, `email`;
 * `other` for a third-party plugin's) and per the error's code (`kinbot_core.channels.errors`):
 * the state of a connection in Settings → Channels, and a Kin's reply that could not be
 * delivered (`meta.undelivered`). Read through `lib/channel-problems.ts`. */
export const en = {
  channelProblems: {
    /** A connection's trouble, read by an administrator in Settings → Channels. */
    state: {
      channel_auth_failed: {
        telegram: "Telegram refused the bot token: check it.",
        email: "The mail server refused the sign-in: check the user name and password.",
        other: "The service refused the channel's credentials: check them.",
      },
      channel_unavailable: {
        telegram: "Telegram cannot be reached for now: KinBot keeps trying.",
        email: "The mail server cannot be reached for now: KinBot keeps trying.",
        other: "The service cannot be reached for now: KinBot keeps trying.",
      },
      channel_rate_limited: {
        telegram: "Telegram asked KinBot to slow down: it will try again.",
        email: "The mail server asked KinBot to slow down: it will try again.",
        other: "The service asked KinBot to slow down: it will try again.",
      },
      channel_rejected: {
        telegram: "Telegram refused a request of the bot.",
        email: "The mail server refused a mail.",
        other: "The service refused a request.",
      },
      channel_blocked: {
        other: "A person blocked the bot.",
      },
      channel_config_invalid: {
        email: "The mail folder cannot be opened: check its name.",
        other: "The channel's settings cannot be used: check them.",
      },
      channel_error: {
        other: "The channel stopped working: check its settings.",
      },
    },
    /** Why a Kin's reply did not reach the person, under "Not delivered to …" in the chat. */
    undelivered: {
      channel_blocked: {
        telegram: "The person blocked the bot, or removed it from the chat.",
        other: "The person no longer accepts the bot's messages.",
      },
      channel_rejected: {
        telegram: "Telegram refused the message.",
        email: "The mail server refused the mail.",
        other: "The service refused the message.",
      },
      channel_unavailable: {
        telegram: "Telegram could not be reached, even after several tries.",
        email: "The mail server could not be reached, even after several tries.",
        other: "The service could not be reached, even after several tries.",
      },
      channel_rate_limited: {
        telegram: "Telegram kept asking KinBot to slow down.",
        email: "The mail server kept asking KinBot to slow down.",
        other: "The service kept asking KinBot to slow down.",
      },
      channel_auth_failed: {
        telegram: "Telegram refused the bot token: an administrator must check it in Settings → Channels.",
        email: "The mail server refused the sign-in: an administrator must check it in Settings → Channels.",
        other: "The service refused the channel's credentials: an administrator must check them in Settings → Channels.",
      },
      channel_config_invalid: {
        other: "The channel's settings cannot be used: an administrator must check them in Settings → Channels.",
      },
      channel_error: {
        other: "Something went wrong while sending it.",
      },
    },
    notDelivered: "Not delivered to {{label}}",
    tryAgain: "Try again",
    retrying: "Sending again…",
    requeued: "Sending it again to {{label}}.",
  },
};

export const fr: typeof en = {
  channelProblems: {
    state: {
      channel_auth_failed: {
        telegram: "Telegram a refusé le jeton du bot : vérifiez-le.",
        email: "Le serveur de messagerie a refusé la connexion : vérifiez l'identifiant et le mot de passe.",
        other: "Le service a refusé les identifiants du canal : vérifiez-les.",
      },
      channel_unavailable: {
        telegram: "Telegram est injoignable pour l'instant : KinBot réessaie.",
        email: "Le serveur de messagerie est injoignable pour l'instant : KinBot réessaie.",
        other: "Le service est injoignable pour l'instant : KinBot réessaie.",
      },
      channel_rate_limited: {
        telegram: "Telegram a demandé à KinBot de ralentir : il réessaiera.",
        email: "Le serveur de messagerie a demandé à KinBot de ralentir : il réessaiera.",
        other: "Le service a demandé à KinBot de ralentir : il réessaiera.",
      },
      channel_rejected: {
        telegram: "Telegram a refusé une demande du bot.",
        email: "Le serveur de messagerie a refusé un courriel.",
        other: "Le service a refusé une demande.",
      },
      channel_blocked: {
        other: "Une personne a bloqué le bot.",
      },
      channel_config_invalid: {
        email: "Le dossier de courrier ne s'ouvre pas : vérifiez son nom.",
        other: "Les réglages du canal sont inutilisables : vérifiez-les.",
      },
      channel_error: {
        other: "Le canal ne fonctionne plus : vérifiez ses réglages.",
      },
    },
    undelivered: {
      channel_blocked: {
        telegram: "La personne a bloqué le bot, ou l'a retiré de la conversation.",
        other: "La personne n'accepte plus les messages du bot.",
      },
      channel_rejected: {
        telegram: "Telegram a refusé le message.",
        email: "Le serveur de messagerie a refusé le courriel.",
        other: "Le service a refusé le message.",
      },
      channel_unavailable: {
        telegram: "Telegram est resté injoignable, même après plusieurs essais.",
        email: "Le serveur de messagerie est resté injoignable, même après plusieurs essais.",
        other: "Le service est resté injoignable, même après plusieurs essais.",
      },
      channel_rate_limited: {
        telegram: "Telegram a demandé à KinBot de ralentir, encore et encore.",
        email: "Le serveur de messagerie a demandé à KinBot de ralentir, encore et encore.",
        other: "Le service a demandé à KinBot de ralentir, encore et encore.",
      },
      channel_auth_failed: {
        telegram: "Telegram a refusé le jeton du bot : un administrateur doit le vérifier dans Réglages → Canaux.",
        email: "Le serveur de messagerie a refusé la connexion : un administrateur doit la vérifier dans Réglages → Canaux.",
        other: "Le service a refusé les identifiants du canal : un administrateur doit les vérifier dans Réglages → Canaux.",
      },
      channel_config_invalid: {
        other: "Les réglages du canal sont inutilisables : un administrateur doit les vérifier dans Réglages → Canaux.",
      },
      channel_error: {
        other: "Un problème est survenu pendant l'envoi.",
      },
    },
    notDelivered: "Non remis à {{label}}",
    tryAgain: "Réessayer",
    retrying: "Nouvel envoi…",
    requeued: "Nouvel envoi à {{label}}.",
  },
};
