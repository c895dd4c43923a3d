package webhooks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// summary is what the chat formats say about an event, read from its
// Gitea payload.
type summary struct {
	title, text, url, sender, avatar, repo string
}

func summarize(eventType string, payload []byte) summary {
	var p struct {
		Action     string `json:"action"`
		Ref        string `json:"ref"`
		CompareURL string `json:"compare_url"`
		Commits    []struct {
			ID      string `json:"id"`
			Message string `json:"message"`
			URL     string `json:"url"`
		} `json:"commits"`
		Issue *struct {
			Number  int64  `json:"number"`
			Title   string `json:"title"`
			HTMLURL string `json:"html_url"`
			Body    string `json:"body"`
		} `json:"issue"`
		Comment *struct {
			Body    string `json:"body"`
			HTMLURL string `json:"html_url"`
		} `json:"comment"`
		Repository struct {
			FullName string `json:"full_name"`
			HTMLURL  string `json:"html_url"`
		} `json:"repository"`
		Sender struct {
			Login     string `json:"login"`
			AvatarURL string `json:"avatar_url"`
		} `json:"sender"`
	}
	_ = json.Unmarshal(payload, &p)
	s := summary{repo: p.Repository.FullName, url: p.Repository.HTMLURL, sender: p.Sender.Login, avatar: p.Sender.AvatarURL}
	switch {
	case eventType == evPush:
		branch := strings.TrimPrefix(p.Ref, "refs/heads/")
		s.title = fmt.Sprintf("[%s:%s] %d new commit(s)", s.repo, branch, len(p.Commits))
		if p.CompareURL != "" {
			s.url = p.CompareURL
		}
		var b strings.Builder
		for _, c := range p.Commits {
			short := c.ID
			if len(short) > 7 {
				short = short[:7]
			}
			fmt.Fprintf(&b, "[%s](%s) %s\n", short, c.URL, strings.SplitN(c.Message, "\n", 2)[0])
		}
		s.text = b.String()
	case p.Comment != nil && p.Issue != nil:
		s.title = fmt.Sprintf("[%s] New comment on issue #%d: %s", s.repo, p.Issue.Number, p.Issue.Title)
		s.url, s.text = p.Comment.HTMLURL, p.Comment.Body
	case p.Issue != nil:
		s.title = fmt.Sprintf("[%s] Issue %s: #%d %s", s.repo, strings.ReplaceAll(p.Action, "_", " "), p.Issue.Number, p.Issue.Title)
		s.url = p.Issue.HTMLURL
		if p.Action == "opened" {
			s.text = p.Issue.Body
		}
	default:
		s.title = fmt.Sprintf("[%s] %s %s", s.repo, eventType, p.Action)
	}
	return s
}

// chatBody renders a payload for a chat hook type: slack, discord or
// msteams.
func chatBody(hookType, meta, eventType string, payload []byte) ([]byte, error) {
	s := summarize(eventType, payload)
	switch hookType {
	case "slack":
		var m slackMeta
		_ = json.Unmarshal([]byte(meta), &m)
		type attachment struct {
			Color     string `json:"color"`
			Title     string `json:"title"`
			TitleLink string `json:"title_link"`
			Text      string `json:"text"`
		}
		return json.Marshal(struct {
			Channel     string       `json:"channel"`
			Text        string       `json:"text"`
			Username    string       `json:"username"`
			IconURL     string       `json:"icon_url"`
			Attachments []attachment `json:"attachments"`
		}{m.Channel, fmt.Sprintf("<%s|%s>", s.url, s.title), m.Username, m.IconURL,
			[]attachment{{Color: m.Color, Title: s.title, TitleLink: s.url, Text: s.text}}})
	case "discord":
		type author struct {
			Name    string `json:"name"`
			IconURL string `json:"icon_url"`
		}
		type embed struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			URL         string `json:"url"`
			Color       int    `json:"color"`
			Author      author `json:"author"`
		}
		return json.Marshal(struct {
			Content string  `json:"content"`
			Embeds  []embed `json:"embeds"`
		}{"", []embed{{Title: s.title, Description: s.text, URL: s.url, Color: 0x609926,
			Author: author{Name: s.sender, IconURL: s.avatar}}}})
	case "msteams":
		return json.Marshal(map[string]any{
			"@type": "MessageCard", "@context": "https://schema.org/extensions", "themeColor": strconv.FormatInt(0x609926, 16),
			"title": s.title, "summary": s.title,
			"sections": []map[string]any{{"activityTitle": s.sender, "activityImage": s.avatar, "text": s.text,
				"facts": []map[string]string{{"name": "Repository:", "value": s.repo}, {"name": "Event:", "value": eventType}}}},
			"potentialAction": []map[string]any{{"@type": "OpenUri", "name": "View in Gitea",
				"targets": []map[string]string{{"os": "default", "uri": s.url}}}},
		})
	}
	return nil, fmt.Errorf("webhook type %s: no chat format", hookType)
}
