package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/internal/rewrite"
	"gjc.dev/reconciler/pkg/relay"
)

// maxAnswer bounds the answer body read: Discord's answers are small.
const maxAnswer = 1 << 20

// answer is what came back for one request, captured below discordgo so the
// classification sees the status, headers and body whatever discordgo made
// of them.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// capture records the answer of the one request it carries.
type capture struct {
	next http.RoundTripper
	out  *answer
}

func (c capture) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	*c.out = answer{status: resp.StatusCode, header: resp.Header, body: body}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// do sends one request: it waits (cancellably) for the route's bucket, sends
// once, and returns the answer body or a classified error. bucket names the
// route as Discord's rate limits key it: method, path template, channel.
func (p *Poster) do(ctx context.Context, method, url, bucket string, body any) ([]byte, error) {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
	}
	return p.send(ctx, method, url, bucket, "application/json", b, p.opts.Timeout)
}

// send is do with the body as it goes out: b, or what the options put in
// the request instead (a streamed upload), within timeout.
func (p *Poster) send(ctx context.Context, method, url, bucket, contentType string, b []byte, timeout time.Duration, opts ...discordgo.RequestOption) ([]byte, error) {
	bk, err := p.lockBucket(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("waiting for the rate limit of %s: %w", bucket, err)
	}
	var ans answer
	client := &http.Client{Timeout: timeout, Transport: capture{next: p.transport, out: &ans}}
	opts = append([]discordgo.RequestOption{discordgo.WithContext(ctx), discordgo.WithClient(client),
		discordgo.WithRestRetries(0), discordgo.WithRetryOnRatelimit(false)}, opts...)
	resp, err := p.s.RequestWithLockedBucket(method, url, contentType, b, bk, 0, opts...)
	if err == nil {
		return resp, nil
	}
	if ans.status == 0 || (ans.status >= 200 && ans.status < 300) {
		// No answer (timeout, reset, EOF) or one that could not be read:
		// the service may have acted on the request. discordgo's error
		// quotes the URL, never the Authorization header.
		return nil, &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("%s %s: %w", method, bucket, rewrite.DialledErr(err, p.cfg.APIURL))}
	}
	return nil, classify(ans.status, ans.header, ans.body)
}

// bucketMargin is added to every bucket wait: discordgo keeps the reset to
// the millisecond, truncating, so without it a request can go out a
// millisecond before the service's window ends and meet a 429.
const bucketMargin = 10 * time.Millisecond

// lockBucket takes the route's discordgo bucket once a request may go out
// under its X-RateLimit-* state, waiting on ctx rather than inside
// discordgo, whose LockBucketObject sleeps with time.Sleep. The lock itself
// is held only by a request in flight on the same route, which its timeout
// bounds.
func (p *Poster) lockBucket(ctx context.Context, key string) (*discordgo.Bucket, error) {
	rl := p.s.Ratelimiter
	b := rl.GetBucket(key)
	for {
		b.Lock()
		wait := rl.GetWaitTime(b, 1)
		if wait <= 0 {
			b.Remaining--
			return b, nil // RequestWithLockedBucket releases it
		}
		b.Unlock()
		t := time.NewTimer(wait + bucketMargin)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
