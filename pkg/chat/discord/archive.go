package discord

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/relay"
)

// codeMissingPermissions is Discord's 403 for a permission the bot lacks.
const codeMissingPermissions = 50013

// Archive implements relay.Poster: archived and locked. Locking needs the
// Manage Threads permission, archiving its own thread does not: a bot
// refused the lock (403, Missing Permissions) archives only, so a session
// still closes, and says so in its log once. From then on it asks for the
// archive alone.
func (p *Poster) Archive(ctx context.Context, threadID string) error {
	p.mu.Lock()
	lock := !p.noLock
	p.mu.Unlock()
	err := p.archive(ctx, threadID, lock)
	if lock && refusedLock(err) {
		p.mu.Lock()
		first := !p.noLock
		p.noLock = true
		p.mu.Unlock()
		if first {
			p.opts.Log.Info("the bot lacks Discord's Manage Threads permission: session threads are archived but not locked",
				"thread", threadID)
		}
		err = p.archive(ctx, threadID, false)
	}
	var re *relay.Error
	if errors.As(err, &re) && re.Code == strconv.Itoa(codeArchivedThread) {
		return nil // archived already: a repeat
	}
	return p.inThread(ctx, threadID, err)
}

func (p *Poster) archive(ctx context.Context, threadID string, lock bool) error {
	body := map[string]bool{"archived": true}
	if lock {
		body["locked"] = true
	}
	_, err := p.do(ctx, http.MethodPatch, discordgo.EndpointChannel(threadID), bucketOf(http.MethodPatch, threadID, ""), body)
	return err
}

// refusedLock: Discord answered 403 Missing Permissions to archived+locked.
func refusedLock(err error) bool {
	var re *relay.Error
	return errors.As(err, &re) && re.Code == strconv.Itoa(codeMissingPermissions)
}
