package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// Runner runs one command and returns its combined output; tests record
// what would have run.
type Runner interface {
	Run(ctx context.Context, argv []string) (string, error)
}

// Host is what Install, Uninstall and Status do their I/O with.
type Host struct {
	Run      Runner
	LookPath func(file string) (string, error)
	Out      io.Writer
	// Lingering says whether the user's services outlive their logins;
	// nil where the manager has no such thing.
	Lingering func() (bool, error)
	// User names the user, for the lingering advice.
	User string
}

// Install writes m's file, once its check passes, and starts it. With
// dryRun it prints the file and the commands instead, and runs nothing.
func Install(ctx context.Context, h Host, m Manager, dryRun bool) error {
	old, err := os.ReadFile(m.File)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading the installed %s file: %w", m.Name, err)
	}
	replaced := err == nil && string(old) != m.Content
	if dryRun {
		h.printInstall(m, replaced)
		return h.reportLinger(m)
	}
	if err := Verify(ctx, h, m); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(m.File), 0o755); err != nil {
		return fmt.Errorf("creating the %s directory: %w", m.Name, err)
	}
	if err := atomicfile.Write(m.File, []byte(m.Content)); err != nil {
		return fmt.Errorf("writing %s: %w", m.File, err)
	}
	fmt.Fprintf(h.Out, "wrote %s\n", m.File)
	if err := h.runAll(ctx, m.Start(replaced)); err != nil {
		return err
	}
	return h.reportLinger(m)
}

// printInstall is install's --dry-run: the file, then the commands.
func (h Host) printInstall(m Manager, replaced bool) {
	fmt.Fprintf(h.Out, "would write %s:\n%s%s%s", m.File, dryRunFence, m.Content, dryRunFence)
	fmt.Fprintln(h.Out, "would run, checking a copy first and stopping at the first failure:")
	verify := m.Verify("")
	fmt.Fprintf(h.Out, "  %s <a copy in a temp dir>/%s\n", ShellWords(verify[:len(verify)-1]), filepath.Base(m.File))
	for _, c := range m.Start(replaced) {
		fmt.Fprintf(h.Out, "  %s\n", ShellWords(c.Argv))
	}
}

// dryRunFence brackets the file in --dry-run's output, so it can be cut
// out and checked as it is.
const dryRunFence = "-----\n"

// Verify checks a copy of m's file under its own name (systemd judges a
// unit by its name), as Install does before anything is installed; a
// missing checker is said, not an error.
func Verify(ctx context.Context, h Host, m Manager) error {
	argv := m.Verify("")
	if _, err := h.LookPath(argv[0]); err != nil {
		fmt.Fprintf(h.Out, "%s not found: the %s file is not checked before it is installed\n", argv[0], m.Name)
		return nil
	}
	dir, err := os.MkdirTemp("", "reconciler-service-")
	if err != nil {
		return fmt.Errorf("checking the %s file: %w", m.Name, err)
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, filepath.Base(m.File))
	if err := os.WriteFile(copyPath, []byte(m.Content), 0o644); err != nil {
		return fmt.Errorf("checking the %s file: %w", m.Name, err)
	}
	out, err := h.Run.Run(ctx, m.Verify(copyPath))
	if err := m.Judge(out, err, copyPath); err != nil {
		return fmt.Errorf("checking the %s file with %s, nothing installed: %w", m.Name, argv[0], err)
	}
	fmt.Fprintf(h.Out, "%s: the %s file checks\n", argv[0], m.Name)
	return nil
}

// Uninstall stops and removes what Install made; nothing installed is not
// an error.
func Uninstall(ctx context.Context, h Host, m Manager, dryRun bool) error {
	if _, err := os.Stat(m.File); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(h.Out, "not installed: %s does not exist\n", m.File)
		if m.packagedExists() {
			// The package's file is the package's to remove.
			fmt.Fprintf(h.Out, "the package's %s stays; to stop using it: %s\n", m.Packaged, ShellWords(m.Stop[0].Argv))
		}
		return nil
	}
	if dryRun {
		fmt.Fprintln(h.Out, "would run:")
		for _, c := range m.Stop {
			fmt.Fprintf(h.Out, "  %s\n", ShellWords(c.Argv))
		}
		fmt.Fprintf(h.Out, "  %s\n", ShellWords([]string{"rm", m.File}))
		for _, c := range m.Forget {
			fmt.Fprintf(h.Out, "  %s\n", ShellWords(c.Argv))
		}
		return nil
	}
	if err := h.runAll(ctx, m.Stop); err != nil {
		return err
	}
	if err := os.Remove(m.File); err != nil {
		return fmt.Errorf("removing %s: %w", m.File, err)
	}
	fmt.Fprintf(h.Out, "removed %s\n", m.File)
	return h.runAll(ctx, m.Forget)
}

// Status prints whether the file is installed and what the manager says
// of it; ok is an installed file with every answer as wanted.
func Status(ctx context.Context, h Host, m Manager) (ok bool, err error) {
	file, installed := m.File, "installed"
	switch _, err := os.Stat(m.File); {
	case errors.Is(err, fs.ErrNotExist) && m.packagedExists():
		file, installed = m.Packaged, "installed by the package"
	case errors.Is(err, fs.ErrNotExist):
		installed = "not installed"
	case err != nil:
		return false, fmt.Errorf("looking for %s: %w", m.File, err)
	}
	fmt.Fprintf(h.Out, "%-9s %s (%s)\n", "file", file, installed)
	ok = installed != "not installed"
	for _, q := range m.Queries {
		answer := q.Answer(h.Run.Run(ctx, q.Argv))
		fmt.Fprintf(h.Out, "%-9s %s\n", q.Label, answer)
		ok = ok && answer == q.Want
	}
	return ok, h.reportLinger(m)
}

func (h Host) runAll(ctx context.Context, cmds []Cmd) error {
	for _, c := range cmds {
		out, err := h.Run.Run(ctx, c.Argv)
		if err != nil && !c.MayFail {
			return fmt.Errorf("%s: %w: %s%s", ShellWords(c.Argv), err, strings.TrimSpace(out), NoUserManagerHint(out))
		}
		fmt.Fprintf(h.Out, "ran %s\n", ShellWords(c.Argv))
	}
	return nil
}

// reportLinger says how to keep the loop running after logout, when it
// would not.
func (h Host) reportLinger(m Manager) error {
	if !m.Linger || h.Lingering == nil {
		return nil
	}
	on, err := h.Lingering()
	if err != nil {
		return fmt.Errorf("checking lingering: %w", err)
	}
	fmt.Fprintln(h.Out, lingerAdvice(h.User, on))
	return nil
}

func (m Manager) packagedExists() bool {
	if m.Packaged == "" {
		return false
	}
	_, err := os.Stat(m.Packaged)
	return err == nil
}
