/** The software's name and version (package.json), as every report and export names them. */
import pkg from '../../package.json'

export const SOFTWARE = { name: 'carats-back-office', title: 'Carats back-office', version: pkg.version } as const
