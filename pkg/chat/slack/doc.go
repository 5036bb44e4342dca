// Package slack is the relay's Slack adapter: a relay.Poster over the Web
// API through slack-go (DESIGN 5, "The relay"). A session is a root
// message in the configured channel and its reply thread; every part
// carries its key in message metadata, invisible in Slack, which is how a
// part whose outcome is uncertain is looked up after a crash.
//
// slack-go sends each call once: it retries only when built with
// OptionRetry or OptionRetryConfig, which this package never uses, and
// net/http does not replay a POST on a broken connection. So a request
// that may have been accepted is never sent again here; the relay decides,
// after Lookup.
package slack
