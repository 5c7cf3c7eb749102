/**
 * The demo MCP server: a provisioner written by hand with `InputRequiredResult`, and a bookshop whose
 * values the model must never supply (stock, delivery, a human's confirmation, the client model's
 * pick, an audience) come from resolvers — the seed articles' examples.
 */
import * as v from 'valibot'
import {
  McpServer,
  RequestStateSecurity,
  acceptedContent,
  arg,
  elicit,
  elicitForm,
  formSchema,
  inputRequired,
  registerAppResource,
  resolver,
  sample,
  toolError,
  type LegacyQuestionOptions,
  type McpServerOptions,
  type NotificationBus,
  type ServerOptions,
} from '../src/server/index.ts'
import { UriTemplate, type RequestedSchema } from '../src/index.ts'
import { ORDER_CARD_HTML, ORDER_CARD_URI } from './order-card.ts'

/** Stock levels of the demo shop. */
export const INVENTORY: Readonly<Record<string, number>> = Object.freeze({ Dune: 7, Neuromancer: 0 })

/** Books by genre, for the shortlist resource. */
const CATALOG: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'sci-fi': ['Dune', 'Neuromancer', 'Hyperion', 'Foundation', 'Solaris'],
  fantasy: ['Earthsea', 'The Hobbit', 'Piranesi'],
})

/** Copies in stock (0 for unknown titles; never reads the prototype, so `constructor` is just unknown). */
export function stockOf(title: string): number {
  return Object.hasOwn(INVENTORY, title) ? INVENTORY[title] : 0
}

const REGION_SCHEMA: RequestedSchema = {
  type: 'object',
  properties: {
    region: { type: 'string', title: 'Region', description: 'Where the database should live, e.g. eu-west-1' },
  },
  required: ['region'],
}

// ---------------------------------------------------------------- resolvers (checked at start-up)

// an unticked box is a "no": optional, default false (the form shows it unmarked, and `{}` means no)
const Backorder = formSchema({ confirm: v.optional(v.pipe(v.boolean(), v.title('Order anyway and wait?')), false) })
const AccountName = formSchema({ name: v.pipe(v.string(), v.minLength(1), v.title('Your name')) })
const AccountPlan = formSchema({ plan: v.pipe(v.picklist(['basic', 'pro']), v.title('Plan')) })
const Confirm = formSchema({ confirm: v.optional(v.pipe(v.boolean(), v.title('Confirm')), false) })
const Audience = formSchema({ audience: v.pipe(v.string(), v.minLength(1), v.title('Audience')) })
const ReturnsShelf = formSchema({
  returns: v.optional(v.pipe(v.boolean(), v.title('Count the returns shelf too')), false),
})
const Length = formSchema({
  count: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5), v.title('How many books')),
})

/** The stock of the requested title. */
const checkStock = resolver({ title: arg<string>() }, function checkStock({ title }) {
  return { title, copies: stockOf(title) }
})
/** When it would arrive. */
const estimateDelivery = resolver({ stock: checkStock }, function estimateDelivery({ stock }) {
  return stock.copies > 0 ? 'tomorrow' : 'in 2-3 weeks'
})
/** Ask only when out of stock. */
const confirmBackorder = resolver(
  { title: arg<string>(), stock: checkStock },
  function confirmBackorder({ title, stock }) {
    if (stock.copies > 0) return { confirm: true }
    return elicit(`"${title}" is out of stock (2-3 weeks). Order anyway?`, Backorder)
  },
)
/** The client's model picks a title. */
const suggestTitle = resolver({ genre: arg<string>() }, function suggestTitle({ genre }) {
  return sample(`Suggest one ${genre} book title. Answer with the title only.`, { maxTokens: 50 })
})
/** A three-question chain: each question depends on the answer before it. */
const accountName = resolver({}, function accountName() {
  return elicit('What name should the account be under?', AccountName)
})
const accountPlan = resolver({ who: accountName }, function accountPlan({ who }) {
  return elicit(`Which plan for ${who.name}?`, AccountPlan)
})
const accountConfirm = resolver({ who: accountName, plan: accountPlan }, function accountConfirm({ who, plan }) {
  return elicit(`Open a ${plan.plan} account for ${who.name}?`, Confirm)
})
const briefingAudience = resolver({}, function briefingAudience() {
  return elicit('Who is the briefing for?', Audience)
})
const shortlistLength = resolver({ genre: arg<string>() }, function shortlistLength({ genre }) {
  return elicit(`How many ${genre} books on the shortlist?`, Length)
})

/** An order's state, as the order card shows it (`structuredContent` of `order_book` and `set_order_quantity`). */
interface Order {
  title: string
  /** Copies ordered (0 when no order was placed). */
  quantity: number
  status: 'ordered' | 'backordered' | 'not-ordered'
  delivery?: string
}

/** A tool result with `text` for the model and hosts without Apps, and `order` for the order card. */
function orderResult(
  text: string,
  order: Order,
): { content: [{ type: 'text'; text: string }]; structuredContent: Order } {
  return { content: [{ type: 'text', text }], structuredContent: order }
}

/** Options of {@link createDemoServer}. */
export interface DemoServerOptions {
  /** Shared request-state keys (newest first); without them each isolate uses its own ephemeral key. */
  requestStateKeys?: readonly (string | Uint8Array)[]
  /** How 2025-era clients are asked questions (the Worker passes its Durable Object mailbox). */
  legacyQuestions?: LegacyQuestionOptions
  /** Where `subscriptions/listen` streams get server events (the Worker passes its Durable Object bus). */
  notificationBus?: NotificationBus
  /** Which resource URIs a listen stream may subscribe to (default: all). */
  authorizeSubscription?: ServerOptions['authorizeSubscription']
  /** OAuth scopes `order_book` needs (the Worker passes `['books:order']` when `OAUTH_ISSUER` is set). */
  orderScopes?: readonly string[]
  /**
   * Where tasks live and run (the Worker passes its Durable Object tasks; Node `inMemoryTasks()`). With it
   * the server also has `stock_take`, a tool that always runs as a task.
   */
  tasks?: McpServerOptions['tasks']
}

/** Build the demo server. */
export function createDemoServer(options: DemoServerOptions = {}): McpServer {
  const security = options.requestStateKeys?.length
    ? new RequestStateSecurity({ keys: options.requestStateKeys })
    : undefined
  const mcp = new McpServer(
    { name: 'edge-mcp-demo', version: '0.1.0', title: 'edge-mcp demo: provisioner and bookshop' },
    {
      instructions: 'A demo server: provision databases, reserve, order and recommend books, open accounts.',
      cache: { ttlMs: 60_000, cacheScope: 'public' },
      ...(security ? { requestStateSecurity: security } : {}),
      ...(options.legacyQuestions ? { legacyQuestions: options.legacyQuestions } : {}),
      ...(options.notificationBus ? { notificationBus: options.notificationBus } : {}),
      ...(options.authorizeSubscription ? { authorizeSubscription: options.authorizeSubscription } : {}),
      ...(options.tasks ? { tasks: options.tasks } : {}),
    },
  )

  // By hand: the handler returns the question and reads the answer (and its own sealed state) on the retry.
  mcp.tool(
    'provision',
    {
      description: 'Provision a database. Asks which region to put it in.',
      input: { name: v.pipe(v.string(), v.minLength(1)) },
    },
    ({ name }, ctx) => {
      // Only trust an answer to the question we asked: our own (sealed) state says we asked it.
      const response = ctx.requestState === 'provision-v1' ? ctx.inputResponses?.region : undefined
      if (response && 'action' in response && response.action !== 'accept') {
        return toolError(
          `No database provisioned: the region question was ${response.action === 'decline' ? 'declined' : 'cancelled'}.`,
        )
      }
      const answer = acceptedContent(response)
      const region = typeof answer?.region === 'string' ? answer.region.trim() : ''
      // an accepted answer is untrusted input: an empty region ends the call with a reason, never a re-ask loop
      if (answer && !region) return toolError("No database provisioned: field 'region' was empty.")
      if (!region) {
        ctx.requireCapabilities('elicitation.form')
        return inputRequired(
          { region: elicitForm('Which region should the database live in?', REGION_SCHEMA) },
          'provision-v1',
        )
      }
      return `Provisioned '${name}' in ${region}.`
    },
  )

  // With resolvers: the SDK asks, records and pins the answers.
  mcp.tool(
    'reserve_book',
    {
      description: 'Reserve a copy of a book.',
      input: { title: v.pipe(v.string(), v.minLength(1)) },
      use: { stock: checkStock },
    },
    ({ title, stock }) =>
      stock.copies <= 0 ? `'${title}' is out of stock.` : `Reserved '${title}' (${stock.copies - 1} copies left).`,
  )

  mcp.tool(
    'order_book',
    {
      description: 'Order a book from the shop. Asks to confirm a backorder when the book is out of stock.',
      input: { title: v.pipe(v.string(), v.minLength(1)) },
      use: { stock: checkStock, delivery: estimateDelivery, backorder: confirmBackorder },
      // an App host shows the result as the order card (worker/order-card.ts)
      _meta: { ui: { resourceUri: ORDER_CARD_URI } },
      ...(options.orderScopes ? { scopes: options.orderScopes } : {}),
    },
    ({ title, stock, delivery, backorder }) => {
      // the text for the model and for hosts without Apps; structuredContent for the order card
      if (!backorder.confirm) return orderResult('No order placed.', { title, quantity: 0, status: 'not-ordered' })
      if (stock.copies <= 0)
        return orderResult(`Backordered '${title}'; it ships in 2-3 weeks.`, {
          title,
          quantity: 1,
          status: 'backordered',
          delivery: 'in 2-3 weeks',
        })
      return orderResult(`Ordered '${title}'; it arrives ${delivery}.`, {
        title,
        quantity: 1,
        status: 'ordered',
        delivery,
      })
    },
  )

  // the order card's own tool: the App calls it when the user changes the quantity; the model never sees it
  mcp.tool(
    'set_order_quantity',
    {
      description: "Change the number of copies of an order (the order card's button; not offered to the model).",
      input: {
        title: v.pipe(v.string(), v.minLength(1)),
        quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)),
      },
      _meta: { ui: { resourceUri: ORDER_CARD_URI, visibility: ['app'] } },
      ...(options.orderScopes ? { scopes: options.orderScopes } : {}),
    },
    ({ title, quantity }) => {
      const copies = stockOf(title)
      return orderResult(`Changed the order of '${title}' to ${quantity} ${quantity === 1 ? 'copy' : 'copies'}.`, {
        title,
        quantity,
        status: copies >= quantity ? 'ordered' : 'backordered',
        delivery: copies >= quantity ? 'tomorrow' : 'in 2-3 weeks',
      })
    },
  )

  mcp.tool(
    'recommend_book',
    {
      description: "Recommend a book in a genre (asks the client's model).",
      input: { genre: v.pipe(v.string(), v.minLength(1)) },
      use: { suggestion: suggestTitle },
    },
    ({ genre, suggestion }) => {
      const content = Array.isArray(suggestion.content) ? suggestion.content[0] : suggestion.content
      if (content?.type !== 'text') return `Today's ${genre} pick: the classics`
      const pick = content.text.trim()
      return pick ? `Today's ${genre} pick: ${pick}` : toolError(`The model suggested no ${genre} book.`)
    },
  )

  mcp.tool(
    'open_account',
    {
      description: 'Open a shop account (asks three questions, one after the other).',
      use: { who: accountName, plan: accountPlan, confirm: accountConfirm },
    },
    ({ who, plan, confirm }) =>
      confirm.confirm ? `Opened a ${plan.plan} account for ${who.name}.` : 'No account opened.',
  )

  if (options.tasks) stockTake(mcp)

  mcp.prompt(
    'briefing',
    {
      description: 'Draft a briefing on a topic, tuned to its audience (asks who it is for).',
      arguments: { topic: v.pipe(v.string(), v.description('What the briefing is about')) },
      use: { audience: briefingAudience },
    },
    ({ topic, audience }) => `Write a one-page briefing on ${topic} for ${audience.audience}.`,
  )

  mcp.resource(
    'catalog',
    'books://catalog',
    { description: 'Every book the shop knows, by genre.', mimeType: 'application/json' },
    () => JSON.stringify(CATALOG),
  )

  // the order card App (worker/order-card.ts) order_book's result is shown in by an MCP Apps host
  registerAppResource(mcp, {
    uri: ORDER_CARD_URI,
    name: 'order_card',
    title: 'Order card',
    description: "order_book's result as an interactive card (an MCP App).",
    html: ORDER_CARD_HTML,
    prefersBorder: true,
  })

  mcp.resourceTemplate(
    'shortlist',
    new UriTemplate('books://{genre}/shortlist'),
    {
      description: 'A shortlist of books in a genre (asks how long).',
      mimeType: 'text/plain',
      use: { length: shortlistLength },
    },
    ({ genre, length }) => {
      const books = Object.hasOwn(CATALOG, genre) ? CATALOG[genre] : []
      return books.length ? books.slice(0, length.count).join('\n') : `No ${genre} books in the catalog.`
    },
  )

  return mcp
}

/** The shelves a stock-take counts, and how many books each holds. */
const SHELVES: readonly (readonly [string, number])[] = [
  ['Sci-fi A-F', 14],
  ['Sci-fi G-Z', 17],
  ['Fantasy', 11],
  ['Crime', 19],
  ['History', 8],
  ['Poetry', 6],
  ['Travel', 9],
  ['Children', 22],
]
/** Books on the returns shelf (counted only when the user says so). */
const RETURNS_SHELF = 5

/** Wait `ms` milliseconds, or less when `signal` aborts (then throws its reason). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error)
    const stop = () => (clearTimeout(timer), reject(signal!.reason as Error))
    const timer = setTimeout(() => (signal?.removeEventListener('abort', stop), resolve()), ms)
    signal?.addEventListener('abort', stop, { once: true })
  })
}

/**
 * `stock_take`: a long-running tool that always runs as a task (Tasks extension): it counts the shelves one
 * after the other over `seconds` (default 20), reporting progress, and midway asks whether to count the
 * returns shelf too. A cancel (`ctx.signal`) stops it between shelves.
 */
function stockTake(mcp: McpServer): void {
  mcp.tool(
    'stock_take',
    {
      description:
        'Count every shelf of the shop (about 20 s; runs as a task, reports progress and asks one question midway).',
      input: {
        seconds: v.optional(
          v.pipe(v.number(), v.minValue(0), v.maxValue(600), v.description('How long the count takes (default 20)')),
        ),
      },
      task: 'required',
    },
    async ({ seconds = 20 }, ctx) => {
      const total = SHELVES.length
      const step = (seconds * 1000) / total
      let books = 0
      let returns = 'the returns shelf was not counted'
      for (const [i, [shelf, count]] of SHELVES.entries()) {
        await ctx.task?.progress(i, total, `Shelf ${i + 1} of ${total}: ${shelf}`)
        await pause(step, ctx.signal)
        books += count
        if (i + 1 === total / 2 && ctx.task) {
          await ctx.task.progress(i + 1, total, `Halfway: ${i + 1} of ${total} shelves counted`)
          const answer = await ctx.task.ask(elicit('Halfway there. Count the returns shelf too?', ReturnsShelf))
          if (answer.action === 'accept' && answer.value.returns) {
            books += RETURNS_SHELF
            returns = `the returns shelf held ${RETURNS_SHELF}`
          }
        }
      }
      await ctx.task?.progress(total, total, 'All shelves counted')
      return `Stock-take complete: ${books} books on ${total} shelves (${returns}).`
    },
  )
}
