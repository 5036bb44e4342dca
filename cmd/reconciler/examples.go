package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are every command's --help examples, by command path, in one
// place so that they read as one voice. Each line that starts with
// "reconciler" must parse on the command tree (examples_test.go checks
// it): an example that does not run teaches the wrong thing.
var examples = map[string]string{
	"reconciler": `  # Run the loop on the default agent dir, ~/.gjc/agent (what the systemd unit and the launchd agent run)
  reconciler

  # One bounded pass: exit 0 converged, 1 not, 2 invalid spec, 3 lock not had
  reconciler --once

  # The same with the agent dir and its spec named (these are the defaults)
  reconciler --once --agent-dir ~/.gjc/agent --spec ~/.gjc/agent/daemons.yaml`,

	"reconciler status": `  # Every daemon, with a live look at its record
  reconciler status

  # Two of them, with the outbox columns and the status message
  reconciler status discord slack -o wide

  # Print the table, then each row again when it changes (Ctrl-C ends it)
  reconciler status -w

  # Everything status.json holds, for scripts
  reconciler status -o json`,

	"reconciler doctor": `  # Check this machine and every bot of the spec against its service; posts nothing
  reconciler doctor

  # One bot, the result as JSON for a script (exit 1 if a check failed)
  reconciler doctor discord -o json`,

	"reconciler fakes": `  # The fake Discord and Slack until Ctrl-C, with a spec and the variables for its tokens
  reconciler fakes

  # The same, with that spec written as ~/.gjc/fakes/daemons.yaml; then, in another shell:
  # reconciler --agent-dir ~/.gjc/fakes doctor, and reconciler --agent-dir ~/.gjc/fakes
  reconciler fakes --agent-dir ~/.gjc/fakes`,

	"reconciler stop": `  # Stop the discord daemon and hold it stopped until start
  reconciler stop discord

  # Allow SIGKILL if it does not exit within 5 seconds of SIGTERM
  reconciler stop discord --force --graceful-timeout 5s

  # Stop and hold every daemon this reconciler manages (the loop keeps running)
  reconciler stop --all`,

	"reconciler start": `  # Lift the hold that stop put on discord; it starts if the spec says Running
  reconciler start discord

  # Lift every hold, as after stop --all
  reconciler start --all`,

	"reconciler restart": `  # Replace the slack daemon now (SIGTERM, SIGKILL if needed, a new one)
  reconciler restart slack

  # Two at once
  reconciler restart discord slack

  # The same, for a script: the result as JSON, and no more than 5s waiting for another pass
  reconciler restart slack -o json --lock-timeout 5s`,

	"reconciler events": `  # What happened, oldest first: spawns, stops, exits, refusals, spec errors
  reconciler events

  # Only two daemons, and keep printing new events (Ctrl-C ends it)
  reconciler events discord slack -f

  # For scripts: one JSON object a line
  reconciler events discord -o json`,

	"reconciler describe": `  # Conditions, the record, how the last one exited, recent events, the log's tail
  reconciler describe discord

  # Several at once
  reconciler describe discord slack`,

	"reconciler logs": `  # The daemon's current log, readable
  reconciler logs discord

  # Its last 20 lines, then each new one as it is written (Ctrl-C ends it)
  reconciler logs discord --tail 20 -f`,

	"reconciler inbox": `  # The replies authorized users sent to the discord daemon's sessions, oldest first
  reconciler inbox discord

  # One session's, then each new one as it lands (Ctrl-C ends it)
  reconciler inbox slack --session agent:1 -f

  # For scripts: one JSON object a line
  reconciler inbox discord -o json`,

	"reconciler validate": `  # Check the default spec (<agent-dir>/daemons.yaml)
  reconciler validate

  # Check a spec directory before installing it
  reconciler validate --spec ./specs -o json`,

	"reconciler send": `  # Open a session's thread, post to it, close it (each prints the message's id)
  reconciler send discord --session build-42 --event open --title "$BRANCH"
  reconciler send discord --session build-42 --level action "$SUMMARY"
  reconciler send discord --session build-42 --event close

  # The text from stdin, with an id of your own so that a retry is the same message
  make test 2>&1 | tail -50 | reconciler send slack --session build-42 --level error --id build-42-tests -`,

	"reconciler ask": `  # Ask with the default buttons, Approve and Deny; prints the ask's id
  reconciler ask discord --session build-42 "$QUESTION"

  # Wait for the answer: the choice alone on stdout (exit 0), or exit 5 if nobody decided in 10 minutes
  choice=$(reconciler ask discord --session build-42 --wait --timeout 10m "$QUESTION")

  # Three buttons, the question from stdin, the whole decision as JSON
  git log -1 --format=%s | reconciler ask slack --session build-42 --choice Ship --choice Wait --choice Abort --wait -o json -`,

	"reconciler gc": `  # List what dead owners left behind (a dry run)
  reconciler gc

  # Remove what is proven stale
  reconciler gc --prune -o json`,

	"reconciler demo": `  # The whole product on local fake Discord and Slack servers; Ctrl-C ends it
  reconciler demo

  # Print the status table every 10 seconds instead
  reconciler demo --print-every 10s`,

	"reconciler service": `  # Run the loop as a user service for this binary and ~/.gjc/agent, and see it
  reconciler service install
  reconciler service status`,

	"reconciler service install": `  # See the unit and the commands first, changing nothing
  reconciler service install --dry-run

  # For another agent dir (an absolute path: the unit names it)
  reconciler service install --agent-dir /srv/bots/agent`,

	"reconciler service uninstall": `  # Remove the service; the bots keep running, to be adopted by the next loop
  reconciler service uninstall

  # Stop every bot first (and hold them stopped), then remove the service
  reconciler service uninstall --stop-bots`,

	"reconciler service status": `  # Installed, enabled, running (exit 1 if not), and on Linux lingering
  reconciler service status`,

	"reconciler version": `  reconciler version
  reconciler version -o json`,

	"reconciler completion": `  # Load completions in the current bash shell
  source <(reconciler completion bash)`,

	"reconciler completion bash": `  reconciler completion bash > ~/.local/share/bash-completion/completions/reconciler`,

	"reconciler completion zsh": `  reconciler completion zsh > "${fpath[1]}/_reconciler"`,

	"reconciler completion fish": `  reconciler completion fish > ~/.config/fish/completions/reconciler.fish`,

	"reconciler completion powershell": `  reconciler completion powershell | Out-String | Invoke-Expression`,

	"reconciler help": `  reconciler help status`,
}

// addExamples puts the examples on root's tree, cobra's own help and
// completion commands included (made here rather than when run, so that
// they have theirs too).
func addExamples(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if ex, ok := examples[c.CommandPath()]; ok {
			c.Example = strings.TrimRight(ex, "\n")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
