// Package fakeserver is the skeleton the chat services' fakes (fakediscord,
// fakeslack) are built on, so that each of them holds only what its service
// does differently: the listener (Server), the request log (Requests), the
// faults every service has (Faults, Hold, FailMode), the oracle the fakes
// judge (Observed, Sessions), the view a test looks through (View), client
// websockets (Socket) and small helpers for IDs and JSON.
//
// All state is guarded by the fake's own mutex, which the fake hands to
// Listen: a fake's handler reads its state and this package's in one
// critical section, and nothing is written to the network under it.
package fakeserver
