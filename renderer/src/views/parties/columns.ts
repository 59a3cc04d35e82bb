import { h } from 'vue'
import { RouterLink } from 'vue-router'
import { NButton, NTag, type DataTableColumns } from 'naive-ui'
import { RELATIONS, type RelatedParty } from '../../../../electron/contract/claims-types'

export interface PartyColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  dateTime: (iso: string) => string
  /** The support screen's player view is open to the role. */
  canOpenPlayer: boolean
  /** The role may remove entries. */
  canRemove: boolean
  remove: (p: RelatedParty) => void
}

const who = (c: PartyColumnContext, by: string, at: string) =>
  h('div', null, [h('div', null, by), h('div', { class: 'muted', style: 'font-size: 12px' }, c.dateTime(at))])

function playerCell(c: PartyColumnContext, p: RelatedParty) {
  const name = h('strong', null, p.player)
  if (!c.canOpenPlayer) return name
  return h(
    RouterLink,
    {
      to: { name: 'support', query: { player: p.player } },
      'aria-label': c.t('parties.openPlayer', { player: p.player }),
      'data-test': `party-player-${p.id}`,
    },
    { default: () => name },
  )
}

function removedCell(c: PartyColumnContext, p: RelatedParty) {
  if (!p.removed)
    return h(
      NTag,
      { size: 'small', round: true, bordered: false, type: 'warning' },
      { default: () => c.t('parties.inForce') },
    )
  return h('div', null, [who(c, p.removed.by, p.removed.at), h('div', { style: 'font-size: 12px' }, p.removed.reason)])
}

export function createPartyColumns(c: PartyColumnContext): DataTableColumns<RelatedParty> {
  const columns: DataTableColumns<RelatedParty> = [
    {
      title: c.t('parties.player'),
      key: 'player',
      minWidth: 140,
      sorter: (a, b) => a.player.localeCompare(b.player),
      render: (p) => playerCell(c, p),
    },
    {
      title: c.t('parties.relation'),
      key: 'relation',
      width: 160,
      sorter: (a, b) => RELATIONS.indexOf(a.relation) - RELATIONS.indexOf(b.relation),
      filter: true,
      filterMultiple: true,
      filterOptions: RELATIONS.map((r) => ({ label: c.t(`parties.relations.${r}`), value: r })),
      render: (p) => c.t(`parties.relations.${p.relation}`),
    },
    {
      title: c.t('parties.linkedTo'),
      key: 'linkedTo',
      minWidth: 120,
      sorter: (a, b) => a.linkedTo.localeCompare(b.linkedTo),
    },
    { title: c.t('parties.reason'), key: 'reason', minWidth: 200 },
    {
      title: c.t('parties.added'),
      key: 'addedAt',
      width: 190,
      sorter: (a, b) => a.addedAt.localeCompare(b.addedAt),
      render: (p) => who(c, p.addedBy, p.addedAt),
    },
    { title: c.t('parties.removed'), key: 'removed', minWidth: 190, render: (p) => removedCell(c, p) },
  ]
  if (c.canRemove) {
    columns.push({
      // no title: the row's button, always shown
      title: '',
      key: 'actions',
      width: 110,
      render: (p) =>
        p.removed
          ? null
          : h(
              NButton,
              {
                size: 'small',
                type: 'error',
                secondary: true,
                'aria-label': `${c.t('parties.remove')} · ${p.player}`,
                'data-test': `party-remove-${p.id}`,
                onClick: () => c.remove(p),
              },
              { default: () => c.t('parties.remove') },
            ),
    })
  }
  return columns
}
