/**
 * `edge-mcp/cloudflare`: what a Worker needs beyond Web APIs — the Durable Objects that carry a 2025-era
 * client's answers (see `legacyQuestions` in the server options) and server events for
 * `subscriptions/listen` (see `notificationBus`) between isolates.
 * @module
 */
export { DEFAULT_MAILBOX_BINDING, McpQuestionMailbox, durableObjectMailbox, type MailboxNamespace } from './mailbox.ts'
export {
  DEFAULT_NOTIFICATIONS_BINDING,
  MAX_BUS_BACKLOG,
  MAX_BUS_EVENT_BYTES,
  McpNotificationBus,
  durableObjectNotificationBus,
  parseBusEvent,
  type NotificationNamespace,
} from './notifications.ts'
