// Package spec defines the ChatDaemon API object that says which chat bots run at
// which generation, and turns spec files into validated, resolved objects.
package spec

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group, Version and Kind of the one object this project reads.
const (
	Group      = "reconciler.gjc.dev"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
	Kind       = "ChatDaemon"
)

// Provider names the chat service a daemon connects to. Its value is also the
// `kind` of the on-disk ownership record, as in the reference system.
type Provider string

const (
	ProviderDiscord  Provider = "discord"
	ProviderSlack    Provider = "slack"
	ProviderTelegram Provider = "telegram"
)

// DesiredState says whether a daemon should be running.
type DesiredState string

const (
	StateRunning DesiredState = "Running"
	StateStopped DesiredState = "Stopped"
)

// Verbosity selects which relayed messages are posted.
type Verbosity string

const (
	VerbosityLean    Verbosity = "lean"
	VerbosityVerbose Verbosity = "verbose"
)

// ChatDaemon is one bot that the reconciler keeps running (or stopped).
type ChatDaemon struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ChatDaemonSpec `json:"spec"`
}

// ChatDaemonSpec is the desired state of one daemon. Pointer fields are optional
// and filled by Default.
type ChatDaemonSpec struct {
	Provider Provider `json:"provider"`
	// Generation is raised by the operator to roll the daemon; a running owner
	// at a lower generation is replaced.
	Generation      *Generation      `json:"generation,omitempty"`
	State           DesiredState     `json:"state,omitempty"`
	ReadyTimeout    *metav1.Duration `json:"readyTimeout,omitempty"`
	GracefulTimeout *metav1.Duration `json:"gracefulTimeout,omitempty"`
	KillTimeout     *metav1.Duration `json:"killTimeout,omitempty"`
	InboundSweep    *metav1.Duration `json:"inboundSweep,omitempty"`
	Redact          bool             `json:"redact,omitempty"`
	Verbosity       Verbosity        `json:"verbosity,omitempty"`
	// LongTextAsFile: a text that renders to more parts posts its first
	// part and the whole text as a .md file (DESIGN 5, "Files"); 0 is off.
	LongTextAsFile int `json:"longTextAsFile,omitempty"`

	Discord  *DiscordSpec  `json:"discord,omitempty"`
	Slack    *SlackSpec    `json:"slack,omitempty"`
	Telegram *TelegramSpec `json:"telegram,omitempty"`
}

// DiscordSpec is the Discord provider block.
type DiscordSpec struct {
	// BotToken is used as written, without the "Bot " prefix; the daemon adds it.
	BotToken          SecretRef `json:"botToken"`
	ApplicationID     string    `json:"applicationId"`
	GuildID           string    `json:"guildId"`
	ParentChannelID   string    `json:"parentChannelId"`
	AuthorizedUserIDs []string  `json:"authorizedUserIds,omitempty"`
	APIURL            string    `json:"apiURL,omitempty"`
	// PingOnAsk lets an ask, and nothing else, mention the authorized
	// users (DESIGN 5, "Decisions").
	PingOnAsk bool `json:"pingOnAsk,omitempty"`
	// MaxInboundFileBytes is the largest file of a reply that lands (a
	// quantity: 10Mi, 512Ki); a larger one is recorded as skipped with
	// its size. Default 10Mi.
	MaxInboundFileBytes *resource.Quantity `json:"maxInboundFileBytes,omitempty"`
}

// SlackSpec is the Slack provider block.
type SlackSpec struct {
	BotToken    SecretRef `json:"botToken"`
	AppToken    SecretRef `json:"appToken"`
	WorkspaceID string    `json:"workspaceId"`
	ChannelID   string    `json:"channelId"`
	// AuthorizedUserID is the reference's single user; AuthorizedUserIDs
	// adds more. Who may talk back is the union of the two.
	AuthorizedUserID  string   `json:"authorizedUserId,omitempty"`
	AuthorizedUserIDs []string `json:"authorizedUserIds,omitempty"`
	APIURL            string   `json:"apiURL,omitempty"`
	// PingOnAsk lets an ask, and nothing else, mention the authorized
	// users (DESIGN 5, "Decisions").
	PingOnAsk bool `json:"pingOnAsk,omitempty"`
	// MaxInboundFileBytes is the largest file of a reply that lands (a
	// quantity: 10Mi, 512Ki); a larger one is recorded as skipped with
	// its size. Default 10Mi.
	MaxInboundFileBytes *resource.Quantity `json:"maxInboundFileBytes,omitempty"`
}

// TelegramSpec is the Telegram provider block.
type TelegramSpec struct {
	BotToken SecretRef `json:"botToken"`
	// ChatID is a supergroup's id ("-100..."): with topics enabled a
	// session is a forum topic, else a root message and its replies.
	ChatID            string   `json:"chatId"`
	AuthorizedUserIDs []string `json:"authorizedUserIds,omitempty"`
	APIURL            string   `json:"apiURL,omitempty"`
	// PingOnAsk lets an ask, and nothing else, mention the authorized
	// users (DESIGN 5, "Decisions").
	PingOnAsk bool `json:"pingOnAsk,omitempty"`
	// MaxInboundFileBytes is the largest file of a reply that lands (a
	// quantity: 10Mi, 512Ki); a larger one is recorded as skipped with
	// its size. Default 10Mi.
	MaxInboundFileBytes *resource.Quantity `json:"maxInboundFileBytes,omitempty"`
	// PostsPerMinute is the chat's posting budget: requests that post
	// or edit in the chat (default 20, the service's documented limit
	// for a group; 1..60000), each second's share max(1, it/20) with a
	// short burst. A bot the service granted more may raise it.
	PostsPerMinute *int `json:"postsPerMinute,omitempty"`
}

// SecretRef says where a credential comes from. Exactly one field is set.
type SecretRef struct {
	FromEnv  string `json:"fromEnv,omitempty"`
	FromFile string `json:"fromFile,omitempty"`
	// Value is allowed so a first try is easy, but it puts a token in a file
	// that is often shared; validation warns.
	Value string `json:"value,omitempty"`
}
