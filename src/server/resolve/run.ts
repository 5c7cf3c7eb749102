/**
 * Running one round of a handler's resolvers (spec: basic/patterns/mrtr.mdx): every resolver at most
 * once, questions that are ready go out together, answers are taken only for the exact question asked.
 * @module
 */
import {
  REQUIRED_CAPABILITY_DATA,
  capabilitiesNeededBy,
  hasCapability,
  type RequiredCapability,
} from '../../protocol/envelope.ts'
import { missingCapabilityError } from '../../protocol/errors.ts'
import type { ElicitRequest, InputRequest, InputRequiredResult, InputResponses } from '../../protocol/schemas/index.ts'
import { canonicalJson, digest16 } from '../../encoding/canonical.ts'
import type { RequestContext } from '../context.ts'
import type { RequestStateValue } from '../../request-state/claims.ts'
import { readState, restore, take, type ResolverResult, type ResolverState } from './answers.ts'
import { RefusalError, ResolutionError } from '../errors.ts'
import { kindOf, type AnyResolver, type ArgNeed, type Need, type OutcomeNeed } from './needs.ts'
import { questionOf, render, type Question } from './questions.ts'

/**
 * How often a question whose answer does not fit its form is asked again before the call fails.
 * @internal not in the public API: the docs state its value
 */
export const MAX_REASKS = 2

/** A handler's resolver graph, checked and keyed at registration. */
export interface ResolverPlan {
  /** The handler's resolved parameters, in declaration order. */
  readonly uses: ReadonlyArray<readonly [string, AnyResolver | OutcomeNeed]>
  /** Resolver → its stable wire key (`name`, `name#1`, … in DFS order). */
  readonly keys: ReadonlyMap<AnyResolver, string>
  /** Names of the resolved parameters (removed from arguments, hidden from the schema). */
  readonly resolvedNames: ReadonlySet<string>
  /** Run one round of this plan (`resolveRound`; for a plan without resolvers: ready, no values). */
  readonly run: (input: RoundInput) => Promise<Resolution>
}

/** What one round of resolution produced. */
export type Resolution =
  { status: 'ready'; values: Record<string, unknown> } | { status: 'input_required'; result: InputRequiredResult }

/** Inputs of one round. */
export interface RoundInput {
  plan: ResolverPlan
  args: Record<string, unknown>
  ctx: RequestContext
  inputResponses: InputResponses | undefined
  /** The state of the previous round (already verified by the sealing boundary): an object, or its JSON. */
  requestState: RequestStateValue | undefined
  /** Log-only notes (e.g. a discarded stale answer). */
  note?: (message: string) => void
  /** Runs each resolver (by its wire key) through the server's resolver middleware, when it has any. */
  around?: (key: string, run: () => Promise<unknown>) => Promise<unknown>
}

/**
 * Run one round: every resolver at most once (independent ones concurrently); every question that is
 * ready goes out together, keyed in plan order; answers are taken only for the exact question asked last
 * round and recorded (validated) in the next state.
 * @throws RefusalError (a ResolutionError) for a declined or cancelled question consumed as a plain value;
 *   ResolutionError for a wrong-kind answer, or an answer that still does not fit its form after
 *   {@link MAX_REASKS} re-asks.
 * @throws McpError -32021 when a question needs a capability this request's client did not declare.
 */
export async function resolveRound(input: RoundInput): Promise<Resolution> {
  return new Round(input).resolve()
}

/** A need's value, or `blocked` when it waits for an answer. */
interface Gathered {
  param: string
  blocked: boolean
  value?: unknown
}

/** One round in progress: the memo of resolver results, the questions going out, and the next state. */
class Round {
  readonly #input: RoundInput
  /** The state the client carried back (the previous round's `next`). */
  readonly #state: ResolverState
  /** The state this round hands on: answers kept or taken, questions asked. */
  readonly #next: ResolverState = { v: 1, outcomes: {}, asked: {} }
  /** Questions going out, by key. */
  readonly #pending = new Map<string, InputRequest>()
  /** Question key → why its answer this round did not fit (it is asked again, saying so). */
  readonly #misfits = new Map<string, string>()
  /** Each resolver's result: a resolver runs at most once per round, whatever its consumers. */
  readonly #memo = new Map<AnyResolver, Promise<ResolverResult>>()

  constructor(input: RoundInput) {
    this.#input = input
    this.#state = readState(input.requestState)
  }

  async resolve(): Promise<Resolution> {
    const { plan } = this.#input
    const { blocked, values } = await this.#gather(plan.uses)
    if (this.#pending.size > 0 || blocked) {
      const inputRequests: Record<string, InputRequest> = {}
      for (const key of plan.keys.values()) if (this.#pending.has(key)) inputRequests[key] = this.#pending.get(key)! // plan order: deterministic
      return {
        status: 'input_required',
        // the state object itself: the sealing boundary serialises it once (McpServer always seals)
        result: { resultType: 'input_required', inputRequests, requestState: this.#next as unknown as string },
      }
    }
    return { status: 'ready', values }
  }

  #run(r: AnyResolver): Promise<ResolverResult> {
    let p = this.#memo.get(r)
    if (!p) {
      p = this.#evaluate(r)
      this.#memo.set(r, p)
    }
    return p
  }

  /** Resolve a needs map concurrently; `blocked` when any dependency is still waiting for an answer. */
  async #gather(
    needs: ReadonlyArray<readonly [string, Need]>,
  ): Promise<{ blocked: boolean; values: Record<string, unknown> }> {
    const settled = await Promise.all(needs.map(([param, need]) => this.#gatherOne(param, need)))
    const values: Record<string, unknown> = {}
    let blocked = false
    for (const s of settled) {
      if (s.blocked) blocked = true
      else values[s.param] = s.value
    }
    return { blocked, values }
  }

  /**
   * The value of one need.
   * @throws RefusalError when the question of a resolver consumed as a plain value was declined or cancelled.
   */
  async #gatherOne(param: string, need: Need): Promise<Gathered> {
    switch (kindOf(need)) {
      case 'arg':
        return { param, blocked: false, value: this.#input.args[(need as ArgNeed).name ?? param] }
      case 'context':
        return { param, blocked: false, value: this.#input.ctx }
      default: {
        const wantsOutcome = kindOf(need) === 'outcome'
        const r = await this.#run(wantsOutcome ? (need as OutcomeNeed).resolver : (need as AnyResolver))
        if (r.kind === 'pending') return { param, blocked: true }
        if (wantsOutcome)
          return {
            param,
            blocked: false,
            value: r.kind === 'value' ? { action: 'accept', value: r.value } : { action: r.action },
          }
        if (r.kind === 'refused') throw new RefusalError(r.action, r.question)
        return { param, blocked: false, value: r.value }
      }
    }
  }

  async #evaluate(r: AnyResolver): Promise<ResolverResult> {
    const { blocked, values } = await this.#gather(Object.entries(r.needs)) // siblings are still visited when one pends
    if (blocked) return { kind: 'pending' }
    const around = this.#input.around
    const produced = around
      ? await around(this.#input.plan.keys.get(r)!, () => Promise.resolve().then(() => r.fn(values)))
      : await r.fn(values)
    const question = questionOf(produced)
    if (!question) return { kind: 'value', value: produced }
    return this.#ask(r, question)
  }

  /** A question: answered from the state, answered fresh, or sent (in that order of preference). */
  async #ask(r: AnyResolver, question: Question): Promise<ResolverResult> {
    const key = this.#input.plan.keys.get(r)!
    const request = render(question)
    const q = await digest16(canonicalJson(request))
    const answered = this.#recalled(key, q, question) ?? this.#answered(key, q, question)
    if (answered) return answered
    this.#checkAskable(key, request)
    const misfit = this.#misfits.get(key)
    // asked again: the message says why (the digest stays the original question's)
    this.#pending.set(key, misfit && request.method === 'elicitation/create' ? withReason(request, misfit) : request)
    this.#next.asked[key] = q
    return { kind: 'pending' }
  }

  /** A recorded answer to this exact question (only consulted because the resolver asked), kept for the next round. */
  #recalled(key: string, q: string, question: Question): ResolverResult | undefined {
    const recorded = own(this.#state.outcomes, key)
    if (!recorded || recorded.q !== q) return undefined
    const restored = restore(question, recorded)
    if (restored) this.#next.outcomes[key] = recorded
    return restored
  }

  /**
   * A fresh answer, taken only for the exact question shown last round and recorded; an answer that does
   * not fit its form counts a re-ask (undefined: ask again).
   * @throws ResolutionError after {@link MAX_REASKS} re-asks, or for an answer of the wrong kind.
   */
  #answered(key: string, q: string, question: Question): ResolverResult | undefined {
    const answer = own(this.#input.inputResponses, key)
    if (answer === undefined) return undefined
    const state = this.#state
    if (own(state.asked, key) !== q) {
      const why =
        own(state.asked, key) === undefined
          ? 'it was never asked in a round this request carries the requestState of'
          : 'the question changed since it was asked'
      this.#input.note?.(`Discarding the answer for resolver '${key}': ${why}`)
      return undefined
    }
    const taken = take(key, question, answer)
    if (!('misfit' in taken)) {
      this.#next.outcomes[key] = { ...taken.recorded, q }
      return taken.result
    }
    const reasked = (own(state.reasked, key) ?? 0) + 1
    if (reasked > MAX_REASKS)
      throw new ResolutionError(
        `The answer to input request '${key}' still does not fit its form after ${MAX_REASKS} re-asks (${taken.misfit})`,
      )
    ;(this.#next.reasked ??= {})[key] = reasked
    this.#misfits.set(key, taken.misfit)
    return undefined
  }

  /** @throws McpError -32021 when this request's client did not declare what the question needs. */
  #checkAskable(key: string, request: InputRequest): void {
    for (const n of capabilitiesNeededBy(request)) {
      if (!hasCapability(this.#input.ctx.clientCapabilities, n)) {
        throw missingCapabilityError(
          REQUIRED_CAPABILITY_DATA[n],
          `Client did not declare the ${CAP_LABEL[n]} capability required by resolver '${key}'`,
        )
      }
    }
  }
}

/** How a required capability is named in the -32021 message. */
const CAP_LABEL: Record<RequiredCapability, string> = {
  'elicitation.form': 'form elicitation',
  'elicitation.url': 'URL elicitation',
  sampling: 'sampling',
  'sampling.tools': 'sampling.tools',
  'sampling.context': 'sampling.context',
  roots: 'roots',
}

/** `obj[key]` when `key` is an own property of `obj` (never a value inherited from `Object.prototype`). */
function own<V>(obj: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined
}

/** An elicitation asked again: its message prefixed with why the last answer did not fit. */
function withReason(request: ElicitRequest, misfit: string): ElicitRequest {
  const message = `The last answer did not fit (${misfit}). ${request.params.message}`
  return { ...request, params: { ...request.params, message } }
}
