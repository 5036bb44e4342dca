// Package fakeserver is the skeleton the chat services' fakes (fakediscord,
// fakeslack) are built on, so that each of them holds only what its service
// does differently:
//
//   - Server: the HTTP listener on 127.0.0.1, every request and socket
//     counted so that Close returns only when nothing of the fake runs any
//     more, the log lines, and the change Signal that WaitFor blocks on.
//   - Requests: the request log (method, path, status, arrival) every
//     request enters as its status is decided; the 429s answered are
//     counted there, whichever fault or limit answered them.
//   - Faults: the switches every service has and a test flips at run time:
//     an outage of the socket endpoint, injected 429s, accepted-then-failed
//     answers (FailMode) and slow answers; a Hold keeps posts waiting
//     before they are stored, Set and Toggle flip a fake's own switches.
//   - Oracle and Sessions: the promises the fakes judge, in one shape:
//     every relay message (by its ID on the wire) stored once, and never
//     two sessions of one token live at once.
//   - Socket: one client websocket with its own writer goroutine, a bounded
//     queue (nothing is written to the network under the fake's lock),
//     close frames, pings, Cut (a network failure, for an outage or a
//     revoked token), and Gone, which sees a client's close before the
//     reader does so that live counts are exact at every look.
//   - Sequence, Hash, RandomHex, ReadJSON, WriteJSON: the small helpers of
//     strictly increasing IDs, stable per-token IDs and JSON answers.
//
// All state is guarded by the fake's own mutex, which the fake hands to
// Listen: a fake's handler reads its state and this package's in one
// critical section.
package fakeserver
