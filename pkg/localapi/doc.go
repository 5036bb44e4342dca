// Package localapi is the loop's local API (DESIGN section 6): HTTP/JSON on
// a unix socket in the agent dir's private state dir, answered only for
// the loop's own uid. An operator's command asks the loop that runs, so it
// sees the loop's spec and acts with the loop's tokens, which the
// operator's shell need not have; with no loop answering, the command acts
// itself (Direct) and says so.
//
// Both ways are a Backend: Client (the loop, over the socket), LoopBackend
// (what the loop serves) and Direct (the command's own process) answer the
// same requests with the same results and errors.
package localapi
