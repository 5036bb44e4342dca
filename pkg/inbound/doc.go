// Package inbound is the way back of a daemon's relay: replies that
// authorized users write in a session's thread land in the session's
// inbox, each exactly once, and none is missed while the daemon was down
// (DESIGN 5, Inbound).
//
// Exactly once rests on one journal record per message (bus.OpLanded),
// written between staging the inbox file and publishing it: a message is
// landed if and only if its record is durable, so a gateway replay, a
// redelivery or a history read after a restart finds it seen, and a crash
// at any instruction either leaves it unseen (its stage is removed, the
// service delivers it again) or seen with its file completed at the next
// start. Nothing is missed because each thread's history is read on
// every connect from a cursor that only moves past messages already
// handled. Files attached to a reply are fetched before it lands and
// land with it, in the same steps (files.go).
package inbound
