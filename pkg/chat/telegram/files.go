package telegram

import (
	"context"
	"errors"
	"io"

	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/relay"
)

// TODO(files): placeholder on the files branch only; the provider's files
// helper replaces it before anything lands on main.

// Files implements relay.Poster.
func (p *Poster) Files() relay.FileLimits { return relay.FileLimits{} }

// Fetch implements inbound.Service.
func (p *Poster) Fetch(context.Context, inbound.RemoteFile, int64, io.Writer) (int64, error) {
	return 0, &inbound.PermanentError{Err: errors.New("files are not supported yet")}
}
