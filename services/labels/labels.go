package labels

import (
	"context"
	"errors"
	"strconv"
	"time"

	"forge/services/errs"
	"forge/services/store"
)

// errNotFound is Gitea's bare 404 for a missing label or issue.
var errNotFound = errs.New(errs.NotFound, "")

// NewLabel is Gitea's CreateLabelOption.
type NewLabel struct {
	Name, Color, Description string
	Exclusive, Archived      bool
}

// LabelEdit is Gitea's EditLabelOption: nil fields stay as they are.
type LabelEdit struct {
	Name, Color, Description *string
	Exclusive, Archived      *bool
}

// Create creates a label of o.
func (s *Service) Create(ctx context.Context, o store.LabelOwner, n NewLabel) (*store.Label, error) {
	color, err := NormalizeColor(n.Color)
	if err != nil {
		return nil, err
	}
	l := &store.Label{RepoID: o.RepoID, OrgID: o.OrgID, Name: n.Name, Color: color,
		Description: n.Description, Exclusive: n.Exclusive}
	if n.Archived {
		l.ArchivedUnix = time.Now().Unix()
	}
	if err := s.store.CreateLabel(ctx, l); err != nil {
		return nil, err
	}
	return l, nil
}

// Edit changes one of o's labels. Archiving records the time once (an
// archived label archived again keeps it); unarchiving clears it.
func (s *Service) Edit(ctx context.Context, o store.LabelOwner, id int64, e LabelEdit) (*store.Label, error) {
	var color string
	if e.Color != nil {
		c, err := NormalizeColor(*e.Color)
		if err != nil {
			return nil, err
		}
		color = c
	}
	l, err := s.store.UpdateLabel(ctx, o, id, func(l *store.Label) error {
		if e.Name != nil {
			l.Name = *e.Name
		}
		if e.Color != nil {
			l.Color = color
		}
		if e.Description != nil {
			l.Description = *e.Description
		}
		if e.Exclusive != nil {
			l.Exclusive = *e.Exclusive
		}
		switch {
		case e.Archived == nil:
		case !*e.Archived:
			l.ArchivedUnix = 0
		case l.ArchivedUnix == 0:
			l.ArchivedUnix = time.Now().Unix()
		}
		return nil
	})
	return l, errs.Replace(err, store.ErrNotFound, errNotFound)
}

// Get returns one of o's labels by id, or by name when ref is not a
// number (as Gitea).
func (s *Service) Get(ctx context.Context, o store.LabelOwner, ref string) (*store.Label, error) {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		l, err := s.store.LabelByID(ctx, o, id)
		return l, errs.Replace(err, store.ErrNotFound, errNotFound)
	}
	l, err := s.store.LabelByName(ctx, o, ref)
	return l, errs.Replace(err, store.ErrNotFound, errNotFound)
}

// List returns a page of o's labels and their total.
func (s *Service) List(ctx context.Context, o store.LabelListOptions) ([]store.Label, int64, error) {
	return s.store.ListLabels(ctx, o)
}

// Delete deletes one of o's labels; an unknown id is no error (Gitea
// answers 204 for it too).
func (s *Service) Delete(ctx context.Context, o store.LabelOwner, id int64) error {
	if err := s.store.DeleteLabel(ctx, o, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}
