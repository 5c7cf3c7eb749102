/** A Worker that runs the request-state vectors inside workerd and answers with the result as JSON. */
import { runVectors } from './request-state-vectors.ts'

export default {
  async fetch(): Promise<Response> {
    const result = await runVectors()
    return Response.json({ runtime: navigator.userAgent, passed: result.passed, failures: result.failures })
  },
}
