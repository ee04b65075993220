//! The container test binary: the image built from the repository's
//! `Dockerfile` (both stages) with podman on local base images, run read-only
//! as nonroot ([`image`]), and `deploy/kubernetes/iplookup.yaml` played with
//! `podman kube play`, including the monthly update into the shared volume
//! ([`kube`]). The image build is the expensive part (a release build inside
//! the build stage: 10 to 15 minutes from cold caches on 2 shared cores, 4 to
//! 5 after a change of the code with the caches of `scripts/image`, seconds
//! when nothing changed), so these tests have a binary of their own:
//! cargo runs test binaries one after another, so the build never competes
//! with the browser and timing-sensitive tests of `tests/external`. The image
//! is built once per run and shared by both modules ([`podman::image`]).
//! Needs root, podman, buildah, runc and debootstrap (`scripts/test` installs
//! them). See `tests/it/main.rs` for the list of test binaries. Address a test
//! as `cargo test --test container MODULE::NAME`.

#[path = "../support/mod.rs"]
mod support;

mod image;
mod kube;
mod podman;
