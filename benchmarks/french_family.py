"""A small French retrieval test set, written for KinBot: a family's memories and questions.

The Martin family (Sophie and Julien, their children Léo and Emma, Mamie Jeanne, the dog
Caramel) as a Kin would remember them, and questions a member might ask, each with the
memories that answer it. Every question is in one of three kinds:

- ``inflection``: the question uses another form of a word of the memory (singular/plural,
  masculine/feminine, another tense, a noun for a verb: "vaccins" for "vacciné");
- ``accents``: the question is typed without the accents the memory has ("ecole", "pediatre");
- ``paraphrase``: the question says it in other words ("grand-mère" for "Mamie", "toutou"
  for the dog's name), so that only meaning can find it.

Used by ``benchmarks/memory_recall_french.py`` and by the tests of French full-text search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["inflection", "accents", "paraphrase"]
KINDS: tuple[Kind, ...] = ("inflection", "accents", "paraphrase")


@dataclass(frozen=True)
class FamilyMemory:
    """A memory as a Kin would store it: what, and about whom."""

    content: str
    subject: str


@dataclass(frozen=True)
class FamilyQuestion:
    """A question, its kind, and the indexes (in ``MEMORIES``) of the memories answering it."""

    text: str
    kind: Kind
    answers: tuple[int, ...]


MEMORIES: tuple[FamilyMemory, ...] = (
    FamilyMemory("Léo est allergique aux arachides : toujours vérifier les étiquettes.", "Léo"),
    FamilyMemory("Emma a peur du noir et dort avec une veilleuse allumée.", "Emma"),
    FamilyMemory("Mamie Jeanne habite à Annecy, au bord du lac, depuis sa retraite.", "Jeanne"),
    FamilyMemory("L'anniversaire de Sophie est le 14 mars ; elle adore les pivoines.", "Sophie"),
    FamilyMemory("Julien joue au football le jeudi soir avec ses collègues.", "Julien"),
    FamilyMemory(
        "Le chien Caramel doit être vacciné chaque année en octobre chez la vétérinaire.",
        "Caramel",
    ),
    FamilyMemory("Léo prend des cours de piano le mercredi après-midi au conservatoire.", "Léo"),
    FamilyMemory("Emma est inscrite à l'école maternelle Jules-Ferry, en grande section.", "Emma"),
    FamilyMemory("La famille part en vacances en Bretagne chaque été, à Quiberon.", "famille"),
    FamilyMemory("Sophie est infirmière à l'hôpital et travaille souvent de nuit.", "Sophie"),
    FamilyMemory("Julien ne mange pas de viande depuis deux ans : il est végétarien.", "Julien"),
    FamilyMemory("Le code du portail de l'immeuble change tous les six mois.", "maison"),
    FamilyMemory(
        "La voiture est une Renault Scénic grise ; le contrôle technique est prévu en mai.",
        "voiture",
    ),
    FamilyMemory("Emma collectionne les coquillages ramassés sur les plages.", "Emma"),
    FamilyMemory(
        "Léo a eu une otite en janvier ; le médecin lui a prescrit des antibiotiques.", "Léo"
    ),
    FamilyMemory("Mamie Jeanne ne supporte pas le lactose et évite les produits laitiers.", ""),
    FamilyMemory("Les enfants se couchent à 20 h 30 les soirs d'école.", "enfants"),
    FamilyMemory("Sophie préfère le thé vert au café le matin.", "Sophie"),
    FamilyMemory("Julien répare lui-même les vélos de toute la famille au garage.", "Julien"),
    FamilyMemory("Le pédiatre des enfants est le docteur Moreau, à la maison médicale.", ""),
    FamilyMemory("Emma a appris à nager cet été à la piscine municipale.", "Emma"),
    FamilyMemory("Léo rêve de devenir astronaute et lit tous les livres sur les planètes.", "Léo"),
    FamilyMemory("La facture d'électricité est prélevée le 5 de chaque mois.", "maison"),
    FamilyMemory("Sophie et Julien se sont mariés le 21 juin 2014 à Lyon.", "parents"),
    FamilyMemory("Caramel n'aime pas les orages et se cache sous le lit quand il tonne.", ""),
    FamilyMemory("Les grands-parents paternels vivent à Marseille et viennent à Noël.", "famille"),
    FamilyMemory("Emma déteste les épinards mais mange volontiers des brocolis.", "Emma"),
    FamilyMemory("Léo a perdu sa première dent de lait la semaine dernière.", "Léo"),
    FamilyMemory("Julien cuisine une ratatouille chaque dimanche pour la semaine.", "Julien"),
    FamilyMemory(
        "La nounou, Fatima, récupère les enfants à la sortie de l'école le mardi et le vendredi.",
        "enfants",
    ),
    FamilyMemory("Sophie court un semi-marathon au printemps ; elle s'entraîne le soir.", "Sophie"),
    FamilyMemory("Le mot de passe du Wi-Fi est noté derrière la box, dans l'entrée.", "maison"),
    FamilyMemory("Mamie Jeanne tricote des pulls pour ses petits-enfants chaque hiver.", ""),
    FamilyMemory("Léo porte des lunettes depuis ses six ans pour sa myopie.", "Léo"),
    FamilyMemory(
        "Emma fête son anniversaire le 2 septembre ; elle veut une fête des licornes.", "Emma"
    ),
    FamilyMemory(
        "Julien est ingénieur chez un fabricant d'éoliennes et se déplace souvent en Allemagne.",
        "Julien",
    ),
    FamilyMemory("Les poubelles jaunes sortent le lundi soir, les grises le jeudi.", "maison"),
    FamilyMemory("Sophie a horreur des araignées.", "Sophie"),
    FamilyMemory("La famille a adopté deux chats, Pixel et Noisette, au refuge en 2022.", ""),
    FamilyMemory("Léo et Emma partagent la même chambre jusqu'aux travaux de l'été.", "enfants"),
    FamilyMemory("Emma a mangé trop de bonbons à la kermesse et a eu mal au ventre.", "Emma"),
    FamilyMemory("Léo est heureux quand il va chez ses cousins à Marseille.", "Léo"),
    FamilyMemory("Sophie conduit les enfants à la piscine le samedi matin.", "Sophie"),
    FamilyMemory("Les chevaux du centre équestre plaisent beaucoup à Emma.", "Emma"),
    FamilyMemory("Julien s'est cassé le poignet en tombant de vélo en 2021.", "Julien"),
    FamilyMemory("Mamie Jeanne envoie une carte postale pour chaque anniversaire.", ""),
    FamilyMemory("La réunion parents-professeurs de Léo a lieu le 12 novembre.", "Léo"),
    FamilyMemory("Le lave-vaisselle fuit : le plombier viendra jeudi.", "maison"),
    FamilyMemory("Emma apprend à lire avec sa maîtresse, madame Girard.", "Emma"),
    FamilyMemory("Sophie voudrait repeindre la cuisine en bleu au printemps.", "Sophie"),
    FamilyMemory("Julien a promis d'emmener Léo voir un match de rugby.", "Julien"),
    FamilyMemory("Les enfants ont reçu des trottinettes pour Noël l'an dernier.", "enfants"),
    FamilyMemory("Léo a peur des chiens depuis qu'un berger allemand l'a mordu.", "Léo"),
    FamilyMemory("Caramel mange des croquettes sans céréales, achetées à l'animalerie.", ""),
    FamilyMemory("Emma dessine des chevaux et des princesses sur tous ses cahiers.", "Emma"),
    FamilyMemory("La famille va à la messe de minuit à Noël chez Mamie Jeanne.", "famille"),
    FamilyMemory("Sophie travaille le week-end une fois par mois.", "Sophie"),
    FamilyMemory("Julien ronfle : Sophie dort parfois dans la chambre d'amis.", "Julien"),
    FamilyMemory("Léo joue aux échecs au club le samedi après-midi.", "Léo"),
    FamilyMemory("Les impôts de la famille sont déclarés en ligne au mois de mai.", "famille"),
)

QUESTIONS: tuple[FamilyQuestion, ...] = (
    # Another form of a word of the memory.
    FamilyQuestion("Quelle allergie a Léo ?", "inflection", (0,)),
    FamilyQuestion("Qui est végétarienne dans la famille ?", "inflection", (10,)),
    FamilyQuestion("Les vaccins du chien", "inflection", (5,)),
    FamilyQuestion("Qui a nagé pour la première fois ?", "inflection", (20,)),
    FamilyQuestion("Qui tricotait les pulls ?", "inflection", (32,)),
    FamilyQuestion("Qui a réparé mon vélo ?", "inflection", (18,)),
    FamilyQuestion("Qui cuisinera dimanche ?", "inflection", (28,)),
    FamilyQuestion("un infirmier de nuit", "inflection", (9,)),
    FamilyQuestion("Qui a adopté un chat ?", "inflection", (38,)),
    FamilyQuestion("Qui collectionnait des coquillages ?", "inflection", (13,)),
    FamilyQuestion("Qui mangeait trop de bonbons ?", "inflection", (40,)),
    FamilyQuestion("Qui aime le cheval ?", "inflection", (43, 54)),
    FamilyQuestion("Quand est-elle heureuse ?", "inflection", (41,)),
    FamilyQuestion("la fuite d'eau de la cuisine", "inflection", (47,)),
    FamilyQuestion("Qui a été mordue par un chien ?", "inflection", (52,)),
    FamilyQuestion("Qui dessinait des princesses ?", "inflection", (54,)),
    FamilyQuestion("Qui ronflait cette nuit ?", "inflection", (57,)),
    FamilyQuestion("une cuisine bleue", "inflection", (49,)),
    FamilyQuestion("Qui a reçu une trottinette ?", "inflection", (51,)),
    # Typed without accents.
    FamilyQuestion("ecole maternelle", "accents", (7,)),
    FamilyQuestion("le pediatre des enfants", "accents", (19,)),
    FamilyQuestion("facture electricite", "accents", (22,)),
    FamilyQuestion("eoliennes", "accents", (35,)),
    FamilyQuestion("the vert ou cafe ?", "accents", (17,)),
    FamilyQuestion("controle technique de la voiture", "accents", (12,)),
    FamilyQuestion("epinards", "accents", (26,)),
    FamilyQuestion("centre equestre", "accents", (43,)),
    FamilyQuestion("veterinaire", "accents", (5,)),
    FamilyQuestion("les echecs du samedi", "accents", (58,)),
    FamilyQuestion("impots declares", "accents", (59,)),
    # Other words.
    FamilyQuestion("Qu'est-ce que Léo ne doit surtout pas manger ?", "paraphrase", (0,)),
    FamilyQuestion("Pourquoi Emma veut-elle une lumière pour dormir ?", "paraphrase", (1,)),
    FamilyQuestion("Où vit la grand-mère ?", "paraphrase", (2,)),
    FamilyQuestion("À quelle heure les petits vont-ils au lit ?", "paraphrase", (16,)),
    FamilyQuestion("Quel métier exerce la maman ?", "paraphrase", (9,)),
    FamilyQuestion("Qui garde les gamins après la classe ?", "paraphrase", (29,)),
    FamilyQuestion("Que fait le toutou pendant la tempête ?", "paraphrase", (24,)),
    FamilyQuestion("Quel sport pratique le papa ?", "paraphrase", (4,)),
    FamilyQuestion("Quel métier Léo veut-il faire plus tard ?", "paraphrase", (21,)),
    FamilyQuestion("Qu'est-ce que Mamie ne peut pas boire ?", "paraphrase", (15,)),
    FamilyQuestion("Qui a eu mal aux oreilles cet hiver ?", "paraphrase", (14,)),
    FamilyQuestion("Quel jour ramasse-t-on les ordures ?", "paraphrase", (36,)),
    FamilyQuestion("Où partons-nous à la mer l'été ?", "paraphrase", (8,)),
    FamilyQuestion("Qui a mal dormi à cause du bruit de son mari ?", "paraphrase", (57,)),
    FamilyQuestion("Quand faut-il payer nos taxes ?", "paraphrase", (59,)),
)
