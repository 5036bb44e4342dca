package chat

import "gjc.dev/reconciler/pkg/redact"

// redactURLs drops the query and user info of every URL in an error text
// before it reaches state.json (and so status): a socket URL's query can
// carry a connection ticket, and libraries quote URLs in their errors.
func redactURLs(s string) string { return redact.URLs(s) }
