import { computed, onScopeDispose, type Ref } from 'vue'
import { useI18n } from 'vue-i18n'
import { useRouter } from 'vue-router'
import { useDialog, useMessage } from 'naive-ui'
import type { EmissionSummary, JobInfo, KeyCeremony } from '../../../../electron/contract'
import { useAuthStore } from '../../stores/auth'
import { useEmissionsStore } from '../../stores/emissions'
import { useJobsStore } from '../../stores/jobs'
import { useErrors } from '../../composables/useErrors'
import { screenActions, type EmissionScreenAction } from './emissionActions'

export type { EmissionScreenAction } from './emissionActions'

/**
 * The emission screen's actions: tasks started and followed, confirmations asked, modals and
 * documents opened. `reload` runs after each change; `show` opens a modal.
 */
export function useEmissionActions(opts: {
  detail: Ref<EmissionSummary | null>
  hasVerdict: Ref<boolean>
  /** The emission's key ceremony: a real emission is generated once it is complete. */
  ceremony: Ref<KeyCeremony | null>
  reload: () => void
  show: (modal: 'withdraw' | 'simulate' | 'import') => void
}) {
  const { t } = useI18n()
  const router = useRouter()
  const auth = useAuthStore()
  const store = useEmissionsStore()
  const jobs = useJobsStore()
  const dialog = useDialog()
  const message = useMessage()
  const { attempt } = useErrors()

  const actions = computed(() =>
    opts.detail.value ? screenActions(opts.detail.value, opts.hasVerdict.value, auth.can, opts.ceremony.value) : [],
  )

  // The header says how a task ended (RecentTasks); this screen reloads, if it is still open.
  let open = true
  onScopeDispose(() => (open = false))
  function onJobEnd(job: JobInfo) {
    if (open && job.emission === opts.detail.value?.emission) opts.reload()
  }

  /** Jobs started elsewhere are followed too. */
  const follow = (jobId: string) => jobs.track(jobId, onJobEnd)

  async function startJob(run: () => Promise<JobInfo>, startedKey: string, n: number) {
    const job = await attempt(run)
    if (!job) return
    message.info(t(startedKey, { n }))
    jobs.track(job, onJobEnd)
    opts.reload()
  }

  function confirm(
    kind: 'info' | 'warning',
    title: string,
    content: string,
    run: () => Promise<void>,
    doneKey: string,
    n: number,
  ) {
    dialog[kind]({
      title,
      content,
      positiveText: title,
      negativeText: t('app.cancel'),
      onPositiveClick: async () => {
        const ok = await attempt(async () => {
          await run()
          return true
        })
        if (ok) message.success(t(doneKey, { n }))
        opts.reload()
      },
    })
  }

  function act(a: EmissionScreenAction) {
    const e = opts.detail.value
    if (!e) return
    const n = e.emission
    switch (a) {
      case 'generate':
        return startJob(() => store.generate(n), 'emissions.generateStarted', n)
      case 'verify':
        return startJob(() => store.verify(n), 'emissions.verifyStarted', n)
      case 'open':
        return confirm(
          'info',
          t('emissions.open'),
          t('emissions.confirmOpen', { n }),
          () => store.open(n),
          'emissions.opened',
          n,
        )
      case 'close':
        return confirm(
          'warning',
          t('emissions.close'),
          t('emissions.confirmClose', { n }),
          () => store.close(n),
          'emissions.closed',
          n,
        )
      case 'withdraw':
      case 'simulate':
      case 'import':
        return opts.show(a)
      case 'certificate':
        return router.push({ name: 'certificate', params: { emission: n } })
      case 'report':
        return router.push({ name: 'verification', params: { emission: n } })
      case 'ceremony':
      case 'details':
        return
    }
  }

  return { actions, act, follow, onJobEnd }
}
