/**
 * `edge-mcp/cloudflare`: what a Worker needs beyond Web APIs — the Durable Objects that carry a 2025-era
 * client's answers (see `legacyQuestions` in the server options) and server events for
 * `subscriptions/listen` (see `notificationBus`) between isolates, and tasks that outlive their request
 * (see `tasks`: one Durable Object per task), and the DPoP proofs accepted by any isolate (see
 * `durableObjectReplayStore`, for edge-mcp/oauth's `dpopProofChecker`).
 * @module
 */
export { McpQuestionMailbox, durableObjectMailbox, type MailboxNamespace } from './mailbox.ts'
export { McpNotificationBus, durableObjectNotificationBus, type NotificationNamespace } from './notifications.ts'
export { durableObjectTasks, taskObject, type TaskNamespace } from './tasks.ts'
export { McpDPoPReplay, durableObjectReplayStore, type ReplayNamespace } from './replay.ts'
