// Package reviews serves forge.reviews.v1.ReviewService: the reviews of
// pull requests, their line comments and review requests. A review is a
// verdict on a commit of the pull request; it is stale once the pull
// request's head moved on (computed from the pull request row, so a push
// needs no work here), and official when its reviewer's verdict counts
// for approvals (Officials). Who may call what is declared in the proto.
package reviews

import (
	"google.golang.org/grpc"

	reviewsv1 "forge/gen/forge/reviews/v1"
	"forge/services/area"
)

// Area declares the reviews area to the server (see package area).
var Area = area.Area{
	Name:       "reviews",
	Services:   []*grpc.ServiceDesc{&reviewsv1.ReviewService_ServiceDesc},
	Gateways:   []area.Gateway{area.Handlers(reviewsv1.RegisterReviewServiceHandlerClient, reviewsv1.NewReviewServiceClient)},
	RepoTables: []string{"reviews", "review_comments"},
}
