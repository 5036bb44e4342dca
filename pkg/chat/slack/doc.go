// Package slack is Slack, all of it, behind chat.Provider (Provider): the
// Socket Mode transport (health from hello and the link's pings, the
// refused tokens that are terminal, envelopes acked once landed), and the
// relay's poster over the Web API through slack-go (DESIGN 5, "The
// relay"), which is also the inbound side's history and reactions.
//
// A session is a root message in the configured channel and its reply
// thread; every part carries its key in message metadata, invisible in
// Slack, which is how a part whose outcome is uncertain is looked up
// after a crash.
//
// An ask's last part also carries Block Kit buttons, one per choice, whose
// action_id and value are the choice's data; every edit leaves a message
// none. A click comes as an interactive envelope: the inbound side decides
// it, the clicker is answered privately (chat.postEphemeral) unless the
// click decided, and only then is the envelope acked; one the inbound side
// could not settle stays unacked for Slack to deliver again.
//
// slack-go sends each call once: it retries only when built with
// OptionRetry or OptionRetryConfig, which this package never uses, and
// net/http does not replay a POST on a broken connection. So a request
// that may have been accepted is never sent again here; the relay decides,
// after Lookup.
package slack
