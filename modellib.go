package main

import (
	"context"
	"time"

	"edgechat/config"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// modelLibrary gives the Models view the models on this PC (discover) and downloads (hub),
// with the folders and token of the settings in force at each call.
type modelLibrary struct{ settings *config.Store }

func (l modelLibrary) Scan() discover.Result {
	s := l.settings.Settings()
	return discover.Scan(discover.RootsFromEnv(s.ModelsFolder(), s.UserModelFolders()))
}

func (l modelLibrary) Pull(ctx context.Context, req hub.Request, progress func(hub.Progress)) (hub.Result, error) {
	return hub.NewClient(l.settings.Settings().HFToken).Pull(ctx, req, hub.Options{Progress: progress, ProgressEvery: 250 * time.Millisecond})
}

func (l modelLibrary) Discard(ctx context.Context, req hub.Request) error {
	return hub.Discard(ctx, req)
}
