package chat

import "context"

// Component is one part of a running daemon that talks to the chat
// service: the transport, and the relay that will post through it. The
// daemon starts its components in order once its first heartbeat
// succeeded, and stops them in reverse order before it releases the name,
// so a later one may rely on an earlier one for as long as it runs.
type Component interface {
	// Name says which component it is, in logs and errors.
	Name() string
	// Start begins its work and returns without waiting for it to end;
	// ctx bounds starting, not the work, which runs until Stop.
	Start(ctx context.Context) error
	// Done is closed when its work has ended, on its own or by Stop.
	Done() <-chan struct{}
	// Err is why its work ended, once Done is closed: nil after Stop, a
	// *TerminalError when the service refused it for good, another error
	// when it ended unexpectedly.
	Err() error
	// Stop ends its work and returns once it no longer talks to the
	// service, or when ctx is done. It returns Err.
	Stop(ctx context.Context) error
}

// healthSource is what each heartbeat writes: the transport's health.
type healthSource interface {
	Health() Health
	// HealthChanged fires when Health changed, so the next heartbeat can
	// be written at once.
	HealthChanged() <-chan struct{}
}
