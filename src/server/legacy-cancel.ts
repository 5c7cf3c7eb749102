/**
 * The legacy requests of sessions while they run, so that `notifications/cancelled` naming one (spec
 * 2025-11-25: basic/utilities/cancellation.mdx) aborts its handler's `ctx.signal` (`legacy-questions.ts`
 * decides where the cancellation goes). On Workers a request's signal cannot be aborted from another
 * request, and the notification may land on another isolate: there a request still running after
 * {@link WATCH_AFTER_MS} waits on the question mailbox (the Durable Object) for its own cancellation, in
 * its own context, until it ends.
 * @module
 */
import { digest16 } from '../encoding/canonical.ts'
import type { RequestId } from '../protocol/schemas/index.ts'
import { defineLazySignal, LazyAbort, type RequestInfo } from './context.ts'
import { QuestionTimeoutError } from './errors.ts'
import type { QuestionMailbox } from './mailbox.ts'

/**
 * How long a request runs before it watches for its cancellation through the mailbox, in milliseconds:
 * most requests end sooner and never reach the object. A cancellation sent meanwhile is not lost: the
 * mailbox keeps it for a wait still to come (the Durable Object 30 s).
 */
export const WATCH_AFTER_MS = 200
/**
 * How long one wait on the mailbox lasts before the next, in milliseconds. The Durable Object learns that
 * a wait ended when its request does only through `enable_request_signal`; without the flag it drops it
 * when this has passed, as it drops a cancellation nobody took (30 s).
 */
const WATCH_MS = 30_000

/** What {@link LegacyQuestions.track} gives a request. */
export interface Tracked {
  withSignal<T extends object>(ctx: T): T
  done(): void
}

/** A request without a session: nothing can cancel it by id. */
export const UNTRACKED: Tracked = {
  withSignal(ctx) {
    return ctx
  },
  done() {},
}

/**
 * A request of a session while it runs here: its cancellation controller is made on first read of its
 * context's signal, or to abort it (most handlers never read theirs). Methods, not closures: nothing is
 * allocated per request but this object (off Workers).
 */
export class TrackedRequest extends LazyAbort implements Tracked {
  readonly key: string
  readonly #inflight: Map<string, TrackedRequest>
  readonly #info: RequestInfo
  /** Ends the watch on the mailbox (see {@link watch}), if there is one. */
  #stopWatch: (() => void) | undefined
  constructor(inflight: Map<string, TrackedRequest>, key: string, info: RequestInfo) {
    super()
    this.#inflight = inflight
    this.key = key
    this.#info = info
  }

  /** The request's own signal (read only when the controller is made: it is lazy too). */
  protected outer(): AbortSignal | undefined {
    return this.#info.signal
  }

  /** Give `ctx` (a context of this request) the signal. */
  withSignal<T extends object>(ctx: T): T {
    defineLazySignal(ctx, this)
    return ctx
  }

  /**
   * Once the request has run {@link WATCH_AFTER_MS}, wait on `mailbox` for a cancellation of request
   * `requestId` of session `sid` (under {@link cancellationKey}) until it ends, and abort it when one
   * comes. A wait that fails (the object could not be reached) ends the watch: the client's going away
   * still aborts the request.
   */
  watch(mailbox: QuestionMailbox, sid: string, requestId: RequestId): void {
    const stop = new AbortController()
    const timer = setTimeout(async () => {
      try {
        const key = await cancellationKey(sid, requestId)
        for (;;) {
          try {
            await mailbox.wait(key, WATCH_MS, stop.signal)
            break
          } catch (error) {
            if (!(error instanceof QuestionTimeoutError)) throw error // still running: wait again
          }
        }
        if (!stop.signal.aborted) this.controller().abort(new Error('cancelled by the client'))
      } catch {
        // the request ended (the wait aborted), or the mailbox failed
      }
    }, WATCH_AFTER_MS)
    // the object drops an aborted wait: it keeps nothing once the request is over
    this.#stopWatch = () => (clearTimeout(timer), stop.abort())
  }

  done(): void {
    this.#stopWatch?.()
    this.release()
    if (this.#inflight.get(this.key) === this) this.#inflight.delete(this.key)
  }
}

/**
 * The key of a session's request in the in-flight registry, which holds it only while the request runs
 * (the request holds its id as long anyway).
 */
export function requestKey(sid: string, requestId: RequestId): string {
  return `request:${sid}:${typeof requestId}:${String(requestId)}`
}

/**
 * The mailbox key of a session's request, for its cancellation: `"request:"` and a 22-character digest of
 * the session and the id, whatever their length (a client chooses the id; the key may be kept a while).
 */
export async function cancellationKey(sid: string, requestId: RequestId): Promise<string> {
  return `request:${await digest16(requestKey(sid, requestId))}`
}
