/** `npm run bench`: every benchmark, measured against the official SDK in the same run. */
import { benchRequestState } from './request-state.ts'

const { lines } = await benchRequestState()
console.log(lines.join('\n'))
