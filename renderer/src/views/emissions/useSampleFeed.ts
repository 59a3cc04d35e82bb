import { ref } from 'vue'
import { useI18n } from 'vue-i18n'
import { useMessage } from 'naive-ui'
import { api } from '../../api'
import { useErrors } from '../../composables/useErrors'
import { emissionNo } from '../../format'
import { downloadText } from '../../components/download'

/**
 * The sample feed the import offers (sales:sampleFeed): made by the backend in the feed's exact
 * format, saved as a file, and said: importable as it is (an open demonstration emission's next
 * units), or the format only.
 */
export function useSampleFeed() {
  const { t } = useI18n()
  const { attempt } = useErrors()
  const message = useMessage()
  const busy = ref(false)

  async function download() {
    busy.value = true
    const sample = await attempt(() => api.call('sales:sampleFeed', {}))
    busy.value = false
    if (!sample) return
    downloadText(sample, 'application/x-ndjson')
    const said = { file: sample.fileName, emission: emissionNo(sample.emission) }
    message.info(t(`imports.sample.${sample.importable ? 'importable' : 'formatOnly'}`, said), {
      duration: 10_000,
      closable: true,
    })
  }
  return { busy, download }
}
