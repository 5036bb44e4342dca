package telegram_test

import (
	"errors"

	"gjc.dev/reconciler/pkg/chat/providertest"
)

// TODO(files): placeholder on the files branch only.

func (f fake) Files(string) []providertest.PostedFile { return nil }

func (f fake) ReplyWithFile(string, string, providertest.AttachedFile) (string, error) {
	return "", errors.New("files are not supported yet")
}
