package main

// The rules of issue 31's fake Telegram that the provider's exactly-once
// and health checks stand on: the fake must refuse as the service does,
// or a provider that is wrong passes.
func init() {
	mutants = append(mutants, []mutant{
		{"faketelegram: a second waiting getUpdates ends the first with 409", "pkg/chat/faketelegram/updates.go",
			"\ts.endPollLocked(pollEnd{answer: conflict(conflictOtherPoll)})\n", "\t_ = pollEnd{answer: conflict(conflictOtherPoll)}\n",
			"./pkg/chat/faketelegram", "TestSecondConsumerAndWebhookConflict"},
		{"faketelegram: updates stay until an offset above them confirms them", "pkg/chat/faketelegram/queue.go",
			"\t\tfor n < len(q.pending) && q.pending[n].ID < offset {\n", "\t\tfor n < len(q.pending) && q.pending[n].ID <= offset {\n",
			"./pkg/chat/faketelegram", "TestUpdatesAreKeptUntilConfirmed"},
		{"faketelegram: the same content again is not modified", "pkg/chat/faketelegram/edit.go",
			"\tif t.text == m.Text && slices.EqualFunc(t.entities, m.Entities, sameEntity) && sameKeyboard(keyboard, m.Keyboard) &&\n",
			"\tif false && t.text == m.Text && slices.EqualFunc(t.entities, m.Entities, sameEntity) && sameKeyboard(keyboard, m.Keyboard) &&\n",
			"./pkg/chat/faketelegram", "TestEditMessageTextAnswersTheProbe|TestAcceptThenReset"},
		{"faketelegram: another author's message can't be edited", "pkg/chat/faketelegram/edit.go",
			"\tif m.From.ID != s.bot.ID || m.Service != \"\" {\n", "\tif m.Service != \"\" {\n",
			"./pkg/chat/faketelegram", "TestEditMessageTextAnswersTheProbe"},
		{"faketelegram: a service message takes the chat's next id", "pkg/chat/faketelegram/topics.go",
			"\tt.closed = true\n\ts.storeLocked(ch, &Message{From: s.bot, Thread: id, Service: ServiceTopicClosed})\n", "\tt.closed = true\n",
			"./pkg/chat/faketelegram", "TestMessageIDsAreSequentialPerChat"},
		{"faketelegram: a plain @name becomes a mention", "pkg/chat/faketelegram/entities.go",
			"\t\t\tj, typ = matchMention(r, i), \"mention\"\n", "\t\t\tj, typ = 0, \"mention\"\n",
			"./pkg/chat/faketelegram", "TestFindEntities"},
		{"faketelegram: a topic's name again is TOPIC_NOT_MODIFIED (the topic probe)", "pkg/chat/faketelegram/topicedit.go",
			"\tif name == t.name {\n", "\tif false {\n",
			"./pkg/chat/faketelegram", "TestEditForumTopic"},
		{"faketelegram: a chat over its budget is answered 429", "pkg/chat/faketelegram/api.go",
			"\tif wait := ch.budget.wait(now); wait > 0 {\n", "\tif wait := ch.budget.wait(now); false && wait > 0 {\n",
			"./pkg/chat/faketelegram", "TestRateLimitPerChat"},
	}...)
}
