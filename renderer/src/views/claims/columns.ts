import { h } from 'vue'
import { RouterLink } from 'vue-router'
import { NTag, type DataTableColumns } from 'naive-ui'
import type { Claim, ClaimStatus } from '../../../../electron/contract/claims-types'
import { emissionNo } from '../../format'
import DemoTag from '../../components/DemoTag.vue'

/** Each status's colour: waiting (warning), on its way (info), done (success), refused or lapsed (error). */
export const CLAIM_STATUS_TYPE: Record<ClaimStatus, 'warning' | 'info' | 'success' | 'error'> = {
  pending: 'warning',
  verified: 'info',
  approved: 'info',
  paid: 'success',
  rejected: 'error',
  expired: 'error',
}

export interface ClaimColumnContext {
  t: (key: string) => string
  money: (cents: number) => string
  dateTime: (iso: string) => string
  /** Writes the days pending; plain digits when not given. */
  int?: (n: number) => string
}

export const statusTag = (t: ClaimColumnContext['t'], s: ClaimStatus, size: 'small' | 'medium' = 'small') =>
  h(
    NTag,
    { type: CLAIM_STATUS_TYPE[s], size, round: true, bordered: false },
    { default: () => t(`claims.status.${s}`) },
  )

/** A related party's claim, and whether it still waits for an auditor's sign-off. */
export function flagTags(t: ClaimColumnContext['t'], c: Pick<Claim, 'related' | 'needsSignOff'>) {
  const tags = []
  if (c.related)
    tags.push(h(NTag, { type: 'error', size: 'small', bordered: false }, { default: () => t('claims.flags.related') }))
  if (c.needsSignOff)
    tags.push(
      h(NTag, { type: 'warning', size: 'small', bordered: false }, { default: () => t('claims.flags.needsSignOff') }),
    )
  return tags.length ? h('span', { class: 'flag-tags' }, tags) : null
}

/** The claims list (claims:list, paged on the server, sorted by time of sale). */
export function createClaimColumns(c: ClaimColumnContext): DataTableColumns<Claim> {
  return [
    {
      title: c.t('claims.columns.serial'),
      key: 'serial',
      width: 200,
      // a link as well as the row's click: the keyboard opens a claim too
      render: (r) =>
        h(
          RouterLink,
          {
            to: { name: 'claim', params: { serial: r.serial } },
            class: 'mono',
            onClick: (e: MouseEvent) => e.stopPropagation(),
          },
          () => r.serial,
        ),
    },
    {
      title: c.t('claims.columns.emission'),
      key: 'emission',
      width: 130,
      // a demonstration's claims marked beside their emission, as everywhere an emission appears
      render: (r) => (r.demo ? h('span', null, [emissionNo(r.emission), h(DemoTag)]) : emissionNo(r.emission)),
    },
    { title: c.t('claims.columns.player'), key: 'player', width: 150, ellipsis: { tooltip: true } },
    {
      title: c.t('claims.columns.prize'),
      key: 'prizeCents',
      width: 120,
      align: 'right',
      render: (r) => h('strong', null, c.money(r.prizeCents)),
    },
    {
      title: c.t('claims.columns.soldAt'),
      key: 'soldAt',
      width: 190,
      sorter: true,
      render: (r) => c.dateTime(r.soldAt),
    },
    { title: c.t('claims.columns.status'), key: 'status', width: 160, render: (r) => statusTag(c.t, r.status) },
    {
      title: c.t('claims.columns.assigned'),
      key: 'assigned',
      width: 140,
      ellipsis: { tooltip: true },
      render: (r) => r.assigned?.to ?? '',
    },
    {
      title: c.t('claims.columns.daysPending'),
      key: 'daysPending',
      width: 130,
      align: 'right',
      render: (r) => (r.daysPending === null ? '' : (c.int ?? String)(r.daysPending)),
    },
    { title: c.t('claims.columns.flags'), key: 'flags', minWidth: 200, render: (r) => flagTags(c.t, r) },
  ]
}
