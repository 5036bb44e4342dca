// Package daemonproto is the contract between the reconciler and each
// `reconciler daemon` process it spawns: the command line (Args), the
// environment (Env), the config on standard input (ConfigStdin,
// ReadConfig), the exit codes, and the reasons a daemon records in its
// record's terminated field when it ends on its own.
//
// The reconciler builds what this package says and the daemon reads it
// back with the same names, so the two sides cannot drift apart; the
// ownership package proves a live process against the same command line
// before it believes a record or signals a PID.
//
// It imports nothing of this module but pkg/spec, whose wire format the
// config keeps: everything else imports it, never the other way.
package daemonproto
