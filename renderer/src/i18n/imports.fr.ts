/** Les importations qui laissent une trace : le résultat et les raisons d’un refus dans l’historique, l’exemple de flux. */
const imports = {
  /** Les réclamations de lot ouvertes par les ventes d’une importation (sur sa ligne d’historique). */
  claims: {
    none: 'aucune réclamation de lot ouverte',
    some: '{n} réclamation de lot ouverte | {n} réclamations de lot ouvertes',
  },
  showReasons: 'Voir les raisons',
  reasons: {
    title: 'Raisons du refus : {file}',
    noName: '(fichier sans nom)',
    by: 'Refusé le {at}, fichier importé par {actor}.',
    summary: '{bad} ligne à corriger sur {lines}. | {bad} lignes à corriger sur {lines}.',
    kinds: '{n} sorte de problème : | {n} sortes de problème, regroupées :',
    times: '{n} fois',
    onLines: 'sur {n} ligne | sur {n} lignes',
    lines: 'ligne {list} | lignes {list}',
    moreLines: '{list}… et {n} autre | {list}… et {n} autres',
    firstCase: 'Premier cas :',
    groupsLeft:
      'Et {kinds} autre sorte de problème ({n} raisons), non détaillée : corrigez celles-ci, puis importez de nouveau pour la voir. | Et {kinds} autres sortes de problème ({n} raisons), non détaillées : corrigez celles-ci, puis importez de nouveau pour les voir.',
    incomplete:
      'Refus enregistré par une version antérieure de l’application : seule la première ligne refusée a été gardée.',
    export: 'Exporter les raisons (CSV)',
    close: 'Fermer',
  },
  /** Dans la fenêtre d’importation : une même raison répétée sur une ligne. */
  repeated: '({n} fois)',
  kept: 'Ces raisons restent dans l’historique des importations, regroupées par sorte de problème, avec leur export CSV.',
  sample: {
    button: 'Télécharger un exemple',
    hint: 'Un petit flux de trois ventes au format exact que l’application lit (une vente JSON par ligne), fait par l’application.',
    importable:
      'Exemple téléchargé ({file}) : les trois prochaines unités de l’émission de démonstration {emission}. Il s’importe tel quel.',
    formatOnly:
      'Exemple téléchargé ({file}) : le format seul, écrit pour l’émission {emission}, qui n’existe pas encore. Aucune émission de démonstration n’est en vente : l’importer serait refusé.',
  },
}

export type ImportsMessages = typeof imports
export default imports
