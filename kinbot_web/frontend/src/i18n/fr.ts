import { fr as backgroundModels } from "./background-models";
import { fr as backups } from "./backups";
import { fr as contextWindow } from "./context-window";
import { fr as cards } from "./cards";
import { fr as channelProblems } from "./channel-problems";
import { fr as channels } from "./channels";
import { fr as chatflow } from "./chatflow";
import { fr as crons } from "./crons";
import { fr as kinFiles } from "./kin-files";
import { fr as apiErrors } from "./errors";
import { fr as markdown } from "./markdown";
import { fr as notifications } from "./notifications";
import type { Strings } from "./en";
import { fr as onboardingExtra } from "./onboarding-extra";
import { fr as approvals } from "./approvals";
import { fr as people } from "./people";
import { fr as fit } from "./fit";
import { fr as memoryUse } from "./memory-use";
import { fr as pluginSettings } from "./plugin-settings";
import { fr as pluginNames } from "./plugin-names";
import { fr as statusCodes } from "./status-codes";
import { fr as taskErrors } from "./task-errors";
import { fr as webhooks } from "./webhooks";
import { fr as kinAccess } from "./kin-access";
import { fr as toolNames } from "./tool-names";
import { fr as usage } from "./usage";

/** Chaînes françaises (mêmes clés que en.ts, vérifié par le typage). */
const fr: Strings = {
  app: { name: "KinBot", tagline: "Votre maisonnée de Kins serviables" },
  common: {
    save: "Enregistrer", cancel: "Annuler", continue: "Continuer", back: "Retour", skip: "Passer", close: "Fermer",
    notifications: "Notifications ({hotkey})",
    delete: "Supprimer", edit: "Modifier", add: "Ajouter", test: "Tester la connexion", loading: "Chargement…", retry: "Réessayer",
    search: "Rechercher", required: "Obligatoire", optional: "Facultatif",
  },
  theme: { label: "Thème", light: "Clair", dark: "Sombre", system: "Système", toggle: "Basculer le mode sombre" },
  language: { label: "Langue", en: "English", fr: "Français" },
  signin: {
    title: "Bon retour", subtitle: "Connectez-vous pour parler à vos Kins.", email: "E-mail", password: "Mot de passe",
    submit: "Se connecter", failed: "Cet e-mail et ce mot de passe ne correspondent pas.", rateLimited: "Trop de tentatives. Réessayez dans un instant.",
  },
  onboarding: {
    step: "Étape {{current}} sur {{total}}",
    identity: {
      title: "Présentez-vous", subtitle: "Vous serez l'administrateur de ce KinBot.",
      avatar: "Photo", upload: "Choisir une photo", firstName: "Prénom", lastName: "Nom", email: "E-mail",
      pseudonym: "Pseudonyme", pseudonymHint: "Le nom que vos Kins utiliseront.", language: "Langue",
      password: "Mot de passe", confirmation: "Confirmer le mot de passe", mismatch: "Les deux mots de passe diffèrent.",
      photoHint: "PNG, JPEG, WebP ou GIF.",
      setupCode: "Code d'installation", setupCodeHint: "Ce KinBot n'a pas encore d'administrateur. Pour montrer que c'est vous qui le faites tourner, saisissez le code affiché dans son journal au démarrage (ou ouvrez le lien qui y figure).",
      setupCodeRequired: "Saisissez le code d'installation affiché dans le journal de KinBot.", setupCodeInvalid: "Ce n'est pas le code d'installation : recopiez-le depuis le journal de KinBot (il change à chaque démarrage).",
    },
    providers: {
      title: "Connectez vos fournisseurs d'IA", subtitle: "KinBot a besoin d'un modèle de conversation, et de la recherche dans la mémoire pour sa mémoire à long terme.",
      apiKey: "Clé d'API", connected: "Connecté", needs: "Encore nécessaire : {{capabilities}}", covered: "Un modèle de conversation et la recherche dans la mémoire sont prêts.",
      imageOff: "Aucun fournisseur d'images : les avatars générés sont désactivés (ajoutez-en un plus tard dans les Réglages).",
      add: "Ajouter un fournisseur", type: "Fournisseur", name: "Nom", configured: "Configurés", none: "Aucun pour l'instant.",
      off: "Désactivé pour l'instant, faute de fournisseur (ajoutez-en un plus tard dans les Réglages) : {{features}}",
      features: { image: "génération d'images (avatars de Kin automatiques, l'outil d'images)", search: "outils de recherche web" },
    },
    search: { title: "Recherche web", subtitle: "Facultatif : laissez vos Kins chercher sur le web.", none: "Sans fournisseur de recherche, les Kins ne peuvent pas chercher sur le web." },
    firstKin: { title: "Créez votre premier Kin", subtitle: "Un Kin est un expert avec sa personnalité et sa mémoire." },
    finish: "Terminer",
  },
  kin: {
    name: "Nom", role: "Rôle", character: "Caractère", expertise: "Expertise", model: "Modèle", create: "Créer le Kin",
    newTitle: "Un nouveau Kin", newSubtitle: "Donnez-lui un nom, un rôle et une personnalité.", chooseModel: "Choisir un modèle",
    namePlaceholder: "Chef", rolePlaceholder: "Cuisinier de la famille", characterPlaceholder: "Chaleureux, bref et encourageant.",
    expertisePlaceholder: "Cuisine végétarienne, produits de saison, repas rapides en semaine.", noModels: "Aucun modèle de langage disponible : ajoutez d'abord un fournisseur d'IA.",
    avatar: "Avatar", avatarLater: "Plus tard", avatarUpload: "Téléverser une image", avatarAuto: "Générer d'après son identité",
    avatarPrompt: "Générer d'après une description", avatarPicture: "Image", avatarDescription: "Décrire l'avatar",
    avatarNeedsImage: "Générer un avatar demande un fournisseur capable de créer des images (Réglages).",
    mcp: "Serveurs MCP", mcpHint: "Les outils que ce Kin peut utiliser ; modifiables ensuite dans ses réglages.", partly: "{{name}} a été créé, mais : {{error}}",
  },
  sidebar: {
    kins: "Kins", tasks: "Tâches", account: "Mon compte", settings: "Réglages", newKin: "Nouveau Kin", noKins: "Pas encore de Kin.",
    noTasks: "Aucune tâche en cours.", queue_one: "{{count}} message en attente", queue_other: "{{count}} messages en attente",
    recentTasks: "Tâches récentes", thinking: "Réfléchit", error: "La dernière réponse a échoué", openMenu: "Ouvrir la navigation", navigation: "Navigation", signOut: "Se déconnecter",
  },
  chat: {
    placeholder: "Écrire à {{name}}…", send: "Envoyer", attach: "Joindre un fichier", stop: "Arrêter", waiting: "En attente",
    typing: "{{name}} écrit", loadOlder: "Charger les messages précédents", beginning: "Ici commence l'histoire {{name, de}}.",
    task: "Tâche", cron: "Planifié", system: "Système", error: "Erreur", tool: "Outil", toolRunning: "{{name}} en cours…", toolCalls_one: "{{count}} appel d'outil", toolCalls_other: "{{count}} appels d'outils",
    taskUnavailable: { title: "Cette tâche n'est pas là", text: "Elle a été supprimée, ou son Kin n'est pas partagé avec vous.", open: "Ouvrir {{name}}" }, notSent: "Message non envoyé", reconnecting: "Connexion perdue, reconnexion…", cancelTask: "Annuler la tâche", taskOf: "Tâche {{name, de}}",
    taskQuestion: "{{task}} pose une question", taskQuestionHint: "Répondez dans ce chat : {{name}} transmet votre réponse à la tâche.",
    openTask: "Ouvrir la tâche", questionWaiting: "Une question attend une réponse", answerIn: "Répondez-y dans le chat {{name, de}}",
    reportsTo: "Rend compte à {{name}}", session: "La session de la tâche", taskMode: { await: "attendue", async: "en arrière-plan", cron: "planifiée" },
    noSession: "Rien dans cette session pour l'instant.", taskResult: "Résultat",
    taskStatus: { pending: "en attente", in_progress: "en cours", completed: "terminée", failed: "échouée", cancelled: "annulée" }, you: "Vous", clock: "24h", select: "Choisissez un Kin pour commencer.",
    secretHidden: "Secret {{number}} masqué", secretActions: "Secret {{number}} masqué : le ranger ou l'afficher",
    secretNote: "Un secret a été détecté et masqué, pour tout le monde et pour {{name}} aussi. {{name}} peut le ranger dans le coffre-fort ; la personne qui l'a envoyé peut dire que ce n'en est pas un.",
    storeSecret: "Ranger dans le coffre-fort…", notASecret: "Ce n'est pas un secret", storeTitle: "Ranger ce secret dans le coffre-fort",
    storeDescription: "Personne ne voit sa valeur au passage : les Kins la lisent par sa clé quand une tâche en a besoin. Le message affichera la clé à la place.",
    storeConfirm: "Ranger", secretStored: "Rangé dans le coffre-fort sous {{key}}",
    dismissTitle: "Ce n'est pas un secret ?", dismissDescription: "Le texte masqué sera affiché à tout le monde dans ce chat, gardé dans son historique et lu par le Kin.",
    dismissConfirm: "L'afficher",
  },
  settings: {
    title: "Réglages", providers: "Fournisseurs d'IA", search: "Fournisseurs de recherche", mcp: "Serveurs MCP", vault: "Coffre-fort",
    users: "Utilisateurs", plugins: "Plugins", account: "Mon compte", masked: "Masqué", addSecret: "Ajouter un secret",
    enabled: "Activé", disabled: "Désactivé", capabilities: "Capacités",
    back: "Retour au chat", key: "Clé", value: "Valeur", description: "Description", noSecrets: "Aucun secret pour l'instant.",
    secretUnreadable: "Illisible : saisissez à nouveau sa valeur",
    secretsUnreadable_one: "{{count}} secret a été chiffré avec une autre clé maîtresse (une sauvegarde restaurée sans son fichier de clé) et ne peut pas être ouvert. Saisissez à nouveau sa valeur, supprimez-le, ou demandez à la personne qui gère le serveur de remettre le fichier secret.key d'origine.",
    secretsUnreadable_other: "{{count}} secrets ont été chiffrés avec une autre clé maîtresse (une sauvegarde restaurée sans son fichier de clé) et ne peuvent pas être ouverts. Saisissez à nouveau leurs valeurs, supprimez-les, ou demandez à la personne qui gère le serveur de remettre le fichier secret.key d'origine.",
    keyHint: "Majuscules et soulignés, par ex. GITHUB_TOKEN.", valueHint: "Masquée une fois enregistrée : personne ne peut la relire ici.",
    adminOnly: "Seul un administrateur peut modifier les réglages.", required: { only_memory_backends: "Indispensable : c'est le seul moteur de mémoire." }, hooks: "Hooks : {{hooks}}", builtin: "intégré", toggle: "Activer {{name}}",
    pluginName: "Nom du plugin : {{name}}", pluginVersion: "version {{version}}",
    loadError: "Chargement impossible : {{error}}",
    editSecret: "Modifier {{key}}", newValue: "Nouvelle valeur", newValueHint: "Laissez vide pour garder la valeur actuelle.",
    deleteSecret: "Supprimer {{key}} ?", deleteSecretHint: "Les Kins ne pourront plus le lire. Les messages garderont son espace réservé.",
  },
  kinSettings: {
    title: "Réglages {{name, de}}", open: "Réglages du Kin", profile: "Profil", memories: "Souvenirs", compacting: "Résumé",
    avatar: "Avatar", upload: "Choisir une image", generate: "En générer un", promptPlaceholder: "Un chat cuisinier joyeux, illustration à plat",
    generateFromPrompt: "Générer d'après cette description", deleteKin: "Supprimer ce Kin", deleteConfirm: "Supprimer {{name}} et toute sa session ? C'est définitif.",
    searchMemories: "Chercher dans les souvenirs", noMemories: "Pas encore de souvenirs.", deleteMemory: "Supprimer ce souvenir",
    contextTokens: "{{tokens}} jetons en contexte, résumé au-delà de {{threshold}}", compactNow: "Résumer maintenant", nothingToCompact: "Rien à résumer pour l'instant", nothingToCompactHint: "Les messages les plus récents restent toujours mot pour mot ; un résumé commence quand la conversation est plus longue.", purge: "Repartir d'un résumé vide", purgeHint: "Le Kin voit ses messages les plus récents mot pour mot et un résumé du reste. « Repartir d'un résumé vide » lui fait oublier ce résumé. Rien n'est supprimé : ses souvenirs et toute la conversation restent, et un résumé précédent de la liste peut redevenir actif.",
    rollback: "Le rendre actif", active: "Actif", noSnapshots: "Pas encore de résumé : toute la session est en contexte.",
    messagesFolded: "{{count}} messages résumés", purgeSnapshot: "Résumé vidé (repartir de zéro)",
    crons: "Crons", cronsIntro: "Un cron est un travail {{name, que}} lance sans qu'on le lui demande, à heures fixes : chaque matin, chaque lundi… Chaque fois, un sous-Kin s'en charge et son résultat arrive dans la conversation.", noCrons: "Pas encore de cron.", newCron: "Nouveau cron", editCron: "Modifier le cron", cronName: "Nom",
    schedule: "Planification",
    taskDescription: "Ce que fait la tâche", cronModel: "Modèle", defaultModel: "Le modèle du Kin", pause: "Mettre en pause", resume: "Reprendre",
    confirm: "Confirmer", decline: "Refuser", declined: "Proposition refusée : {{name}}.", awaitingConfirmation: "En attente de confirmation", proposedBy: "Proposé par {{name}}", paused: "En pause", running: "Actif",
    deleteCron: "Supprimer le cron {{name}}", deleteCronConfirm: "Il ne se déclenchera plus. Ses exécutions passées restent dans les tâches.",
    lastRun: "Dernière exécution : {{status}}", lastSkip: "Dernière omission : {{reason}}", cronSaved: "Cron enregistré",
    nextRun: "Prochaine exécution : {{when}}", neverRun: "Pas encore exécuté",
    runStatus: { starting: "en démarrage", running: "en cours", completed: "terminée", failed: "en échec", cancelled: "annulée", skipped: "omise" },
    network: "Internet pour ses scripts", networkSwitch: "Les scripts {{name, de}} peuvent utiliser internet",
    networkHint: "Désactivé par défaut. Activé, les scripts {{name, que}} écrit (ses outils personnalisés) atteignent les adresses web publiques par le proxy de KinBot, jamais cette machine ni votre réseau local.",
    networkOwnerOnly: "Seuls un administrateur ou la personne qui a créé {{name}} peuvent changer ce réglage.",
    networkUnavailable: "Ce serveur ne sait pas limiter les scripts à son proxy : ils restent hors ligne pour l'instant.",
  },
  register: {
    title: "Rejoindre KinBot", subtitle: "Vous êtes invité·e comme {{role}}. Présentez-vous.", submit: "Créer mon compte",
    invalid: "Cette invitation a déjà servi, a été révoquée ou a expiré. Demandez-en une nouvelle.", signIn: "J'ai déjà un compte",
  },
  providers: {
    editHint: "Une clé ou une adresse modifiée est testée avant d'être enregistrée.", secretKept: "Laissez vide pour garder l'actuelle ({{hint}}).",
    keyEnding: "clé se terminant par {{tail}}", keySaved: "clé enregistrée",
    deleteConfirm: "Supprimer {{name}} ? Les Kins qui utilisent ses modèles devront en choisir un autre.",
  },
  kinTools: {
    tab: "Outils", mcp: "Serveurs MCP", mcpHint: "Les serveurs dont ce Kin peut utiliser les outils, dès son prochain tour.",
    noServers: "Aucun serveur MCP n'est configuré (Réglages › Serveurs MCP).", noServerTools: "Pas encore d'outil.",
    assign: "{{kin}} peut utiliser {{server}}", custom: "Outils personnalisés", customHint: "Les scripts que le Kin a enregistrés comme outils. En retirer un laisse son script dans l'espace de travail.",
    remove: "Retirer l'outil {{name}}", removeConfirm: "Retirer l'outil {{name}} ? {{kin}} ne pourra plus l'appeler ; son script reste dans l'espace de travail.",
    removed: "Outil {{name}} retiré", parametersOf: "Arguments {{name, de}}", required: "obligatoire", noParameters: "Aucun argument.",
    noCustom: "Ce Kin n'a enregistré aucun outil.", sandboxOn: "Les scripts {{name, de}} tournent isolés du reste du serveur : ils ne travaillent que sur ses propres fichiers et ne peuvent lire ni les données de KinBot, ni les fichiers des autres Kins, ni les secrets du coffre-fort.",
    sandboxNone: "Pas de bac à sable : un administrateur a choisi de faire tourner les scripts sans confinement, ils peuvent donc lire ce que le serveur peut lire.",
    sandboxRefused: "Outils personnalisés désactivés : ce serveur ne sait pas isoler les scripts. Un administrateur peut y remédier.",
    sandboxRefusedAdmin: "Outils personnalisés désactivés : aucun bac à sable ne fonctionne sur ce serveur. Un administrateur peut installer bubblewrap, utiliser un noyau Linux avec Landlock, ou accepter le risque avec custom_tool_sandbox = \"none\" (le journal du serveur dit pourquoi).",
    pluginOff: "Ce plugin est désactivé.",
    state: { connecting: "Connexion…", connected: "Connecté", failed: "En échec", disabled: "Désactivé", stopped: "Arrêté" },
  },
  mcp: {
    add: "Ajouter un serveur MCP", none: "Pas encore de serveur MCP.", hint: "Les Kins auxquels vous l'attribuez reçoivent ses outils sous le nom <serveur>__<outil>.",
    nameHint: "Lettres, chiffres, - et _ seulement, 32 au plus.", transport: "Transport", command: "Commande", args: "Arguments", argsHint: "Un par ligne.", env: "Environnement", url: "URL", headers: "En-têtes",
    secretHint: "Un NOM=valeur (en-têtes : Nom: valeur) par ligne ; les valeurs sont masquées une fois enregistrées (******** garde l'actuelle), ${vault:CLE} lit le coffre.",
    reconnect: "Reconnecter {{name}}", deleteConfirm: "Supprimer {{name}} ? Les Kins qui l'utilisent perdent ses outils.",
  },
  users: {
    people: "Personnes", invitations: "Invitations", role: "Rôle", member: "Membre", admin: "Administrateur",
    // Un rôle au milieu d'une phrase, en minuscules (« invité·e comme membre ») ; les clés ci-dessus sont des libellés.
    roleInline: { member: "membre", admin: "administrateur·rice" },
    roleOf: "Rôle {{name, de}}", activeOf: "{{name}} peut se connecter", remove: "Supprimer {{name}}",
    removeConfirm: "Supprimer le compte {{name, de}} ? Ses messages restent dans les chats.", note: "Note", notePlaceholder: "Pour Marie",
    invite: "Créer une invitation", codeTitle: "Lien d'invitation", codeOnce: "Affiché maintenant seulement : envoyez-le à la personne invitée. Il ne sert qu'une fois.",
    copy: "Copier le lien", copied: "Lien copié", noInvitations: "Pas encore d'invitation.", revoke: "Révoquer", expires: "Expire le {{date}}",
    status: { pending: "En attente", used: "Utilisée", revoked: "Révoquée", expired: "Expirée" },
  },
  account: {
    title: "Mon compte", profile: "Profil", saved: "Enregistré", languageSaved: "Langue enregistrée", photo: "Photo", password: "Mot de passe", current: "Mot de passe actuel",
    newPassword: "Nouveau mot de passe", confirmation: "Confirmer le nouveau mot de passe", changePassword: "Changer le mot de passe",
    passwordChanged: "Mot de passe changé. Les autres navigateurs ont été déconnectés.",
  },
  design: {
    title: "Design system", subtitle: "Chaque composant de base, en clair et en sombre.", colours: "Couleurs", buttons: "Boutons",
    inputs: "Champs", cards: "Cartes", overlays: "Dialogues, menus et notifications", tabs: "Onglets", avatars: "Avatars et badges",
    bubbles: "Bulles de chat", openDialog: "Ouvrir un dialogue", openMenu: "Ouvrir un menu", showToast: "Afficher une notification", toastTitle: "Enregistré",
    toastBody: "Vos modifications sont conservées.", dialogTitle: "Un dialogue tout doux", dialogBody: "Les dialogues gardent le focus et se ferment avec Échap.",
    mockups: "Maquettes",
  },
  ...chatflow,
  errors: { generic: "Une erreur est survenue.", notFound: "Cette page n'existe pas.", home: "Accueil", offline: "KinBot est injoignable." },
  ...apiErrors,
  ...cards,
  ...crons,
  ...kinFiles,
  ...markdown,
  ...notifications,
  ...onboardingExtra,
  ...people,
  ...fit,
  ...memoryUse,
  ...approvals,
  ...channels,
  ...channelProblems,
  ...pluginSettings,
  ...pluginNames,
  ...statusCodes,
  ...taskErrors,
  ...webhooks,
  ...kinAccess,
  ...toolNames,
  ...usage,
  ...backups,
  ...backgroundModels,
  ...contextWindow,
};

export default fr;
