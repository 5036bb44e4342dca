package telegram

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-telegram/bot/models"
)

func updateIn(chat int64, id int) models.Update {
	return models.Update{Message: &models.Message{ID: id, Chat: models.Chat{ID: chat}}}
}

// The transport saves the highest message id of its chat it was sent;
// a poster of the same chat reads it, of another chat (chatId changed)
// does not: that chat's ids bound nothing here.
func TestChatTopIsSavedForItsChatOnly(t *testing.T) {
	dir := t.TempDir()
	saved := newChatTop("-100", dir)
	if err := saved.save([]models.Update{updateIn(-100, 40), updateIn(-200, 900), {EditedMessage: &models.Message{ID: 12, Chat: models.Chat{ID: -100}}}}); err != nil {
		t.Fatal(err)
	}
	if err := saved.save([]models.Update{updateIn(-100, 30)}); err != nil { // never lowered
		t.Fatal(err)
	}
	read := newChatTop("-100", dir)
	if got := read.get(); got != 40 {
		t.Errorf("the chat's top = %d, want 40", got)
	}
	other := newChatTop("-300", dir)
	if got := other.get(); got != 0 {
		t.Errorf("another chat's top = %d, want 0", got)
	}
	if err := os.WriteFile(filepath.Join(dir, TopFile), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	read.saw(7)
	if got := read.get(); got != 7 {
		t.Errorf("with a junk file the top = %d, want the one in memory, 7", got)
	}
}
