/**
 * Subscriptions (spec: basic/patterns/subscriptions.mdx) and notifications: `subscriptions/listen`, the
 * messages of a listen stream (acknowledged, list changed, resource updated), and cancellation.
 * @module
 */
import * as v from 'valibot'
import { META } from '../constants.ts'
import { MetaObject, once, RequestId } from './common.ts'
import { notification, request } from './jsonrpc.ts'
import { requestParamsBase } from './requests.ts'

export const CancelledNotificationParams = /* @__PURE__ */ v.looseObject({
  requestId: /* @__PURE__ */ v.optional(RequestId),
  reason: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
  _meta: /* @__PURE__ */ v.optional(MetaObject),
})
export const CancelledNotification = /* @__PURE__ */ notification(
  'notifications/cancelled',
  CancelledNotificationParams,
)

/** `SubscriptionFilter`: the notification kinds a client opts in to on `subscriptions/listen` (all optional). */
export const subscriptionFilter = /* @__PURE__ */ once(() =>
  v.looseObject({
    toolsListChanged: v.optional(v.boolean()),
    promptsListChanged: v.optional(v.boolean()),
    resourcesListChanged: v.optional(v.boolean()),
    resourceSubscriptions: v.optional(v.array(v.string())),
  }),
)
export const SubscriptionFilter = /* @__PURE__ */ subscriptionFilter()
export type SubscriptionFilter = v.InferOutput<typeof SubscriptionFilter>

export const SubscriptionsListenRequestParams = /* @__PURE__ */ (() =>
  v.looseObject({ ...requestParamsBase(), notifications: SubscriptionFilter }))()
export type SubscriptionsListenRequestParams = v.InferOutput<typeof SubscriptionsListenRequestParams>
export const SubscriptionsListenRequest = /* @__PURE__ */ request(
  'subscriptions/listen',
  SubscriptionsListenRequestParams,
)

/** `_meta` of every message on a listen stream: the JSON-RPC id of the `subscriptions/listen` request. */
const SubscriptionMeta = /* @__PURE__ */ (() => v.looseObject({ [META.subscriptionId]: RequestId }))()

/** `SubscriptionsListenResult`: the graceful end of a subscription (no other data). */
export const SubscriptionsListenResult = /* @__PURE__ */ v.looseObject({
  resultType: /* @__PURE__ */ v.string(),
  _meta: SubscriptionMeta,
})
export type SubscriptionsListenResult = v.InferOutput<typeof SubscriptionsListenResult>
export const SubscriptionsListenResultResponse = /* @__PURE__ */ v.object({
  jsonrpc: /* @__PURE__ */ v.literal('2.0'),
  id: RequestId,
  result: SubscriptionsListenResult,
})

/** `notifications/subscriptions/acknowledged`: the first message of a listen stream, with the honoured subset. */
export const SubscriptionsAcknowledgedNotification = /* @__PURE__ */ notification(
  'notifications/subscriptions/acknowledged',
  /* @__PURE__ */ v.looseObject({ _meta: /* @__PURE__ */ v.optional(MetaObject), notifications: SubscriptionFilter }),
)
export type SubscriptionsAcknowledgedNotification = v.InferOutput<typeof SubscriptionsAcknowledgedNotification>

const listChanged = <M extends string>(method: M) =>
  notification(method, v.optional(v.looseObject({ _meta: v.optional(MetaObject) })))
export const ToolListChangedNotification = /* @__PURE__ */ listChanged('notifications/tools/list_changed')
export const PromptListChangedNotification = /* @__PURE__ */ listChanged('notifications/prompts/list_changed')
export const ResourceListChangedNotification = /* @__PURE__ */ listChanged('notifications/resources/list_changed')

export const ResourceUpdatedNotificationParams = /* @__PURE__ */ v.looseObject({
  _meta: /* @__PURE__ */ v.optional(MetaObject),
  uri: /* @__PURE__ */ v.string(),
})
export const ResourceUpdatedNotification = /* @__PURE__ */ notification(
  'notifications/resources/updated',
  ResourceUpdatedNotificationParams,
)
export type ResourceUpdatedNotification = v.InferOutput<typeof ResourceUpdatedNotification>
