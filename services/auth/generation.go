package auth

import (
	"context"

	"forge/services/store"
)

// GenerationReader reads the database's generations (store.AuthGeneration).
type GenerationReader interface {
	AuthGeneration(ctx context.Context) (store.Generation, error)
}

// generationSlot holds the generation read while the interceptor checks
// one call, so that the caches it consults (principals here, resolved
// repositories in access) cost the call one counter read between them.
// It is closed before the handler runs: a handler that writes and then
// resolves again must see its own write.
type generationSlot struct {
	g    store.Generation
	read bool
	open bool
}

type generationKey struct{}

// withGenerationSlot gives the check of the call in ctx a place for its
// generation; close it once the check is done.
func withGenerationSlot(ctx context.Context) (context.Context, *generationSlot) {
	slot := &generationSlot{open: true}
	return context.WithValue(ctx, generationKey{}, slot), slot
}

func (s *generationSlot) close() { *s = generationSlot{} }

// CurrentGeneration is the generation to judge caches by: read from st at
// its first use in the interceptor's check of a call, then the same for
// the rest of the check, so everything the check takes from a cache
// belongs to one state at least as new as the call's start. Elsewhere
// every use reads it afresh.
func CurrentGeneration(ctx context.Context, st GenerationReader) (store.Generation, error) {
	slot, _ := ctx.Value(generationKey{}).(*generationSlot)
	if slot != nil && slot.read {
		return slot.g, nil
	}
	g, err := st.AuthGeneration(ctx)
	if err != nil {
		return store.Generation{}, err
	}
	if slot != nil && slot.open {
		slot.g, slot.read = g, true
	}
	return g, nil
}
