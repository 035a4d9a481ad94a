//! The Kubernetes release a request targets (1.25 to 1.36); every behaviour that differs
//! between releases switches on it (engine/VERSIONS.md lists them).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

impl KubeVersion {
    pub const MIN: KubeVersion = KubeVersion { minor: 25 };
    pub const LATEST: KubeVersion = KubeVersion { minor: 37 };
    /// The release a `crdlab batch` request without `kubernetesVersion` targets: the
    /// protocol (shared/docs/vector-format.md) fixes it at 1.36, the release whose answers
    /// the vectors without a version hold. Everything a person uses defaults to [`Self::LATEST`].
    pub const PROTOCOL_DEFAULT: KubeVersion = KubeVersion { minor: 36 };

    /// Parses `1.32`, `v1.32` or `1.32.3`.
    pub fn parse(s: &str) -> Result<KubeVersion, String> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        match (major, minor) {
            (Some(1), Some(m)) if (Self::MIN.minor..=Self::LATEST.minor).contains(&m) => Ok(KubeVersion { minor: m }),
            (Some(1), Some(_)) => Err(format!(
                "kubernetesVersion {:?} is not supported: crdlab targets 1.{} to 1.{}",
                s,
                Self::MIN.minor,
                Self::LATEST.minor
            )),
            _ => Err(format!("kubernetesVersion {:?} is not a Kubernetes version like \"1.32\"", s)),
        }
    }

    pub fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }

    /// Validation ratcheting as the release ships it: the `CRDValidationRatcheting` gate
    /// arrived in 1.28 (alpha, off) and is on by default from 1.30 (beta; GA in 1.33).
    pub fn ratcheting_by_default(self) -> bool {
        self.at_least(30)
    }

    /// Whether ratcheting can be turned on at all: from 1.28, where the gate exists.
    pub fn ratcheting_available(self) -> bool {
        self.at_least(28)
    }

    /// The ratcheting a request asks for (`None`: the release's default), or why the
    /// release cannot do it.
    pub fn ratcheting(self, asked: Option<bool>) -> Result<bool, String> {
        match asked {
            None => Ok(self.ratcheting_by_default()),
            Some(true) if !self.ratcheting_available() => Err(format!(
                "ratcheting is not available on Kubernetes {}: validation ratcheting arrived in 1.28 (the CRDValidationRatcheting feature gate; on by default from 1.30)",
                self
            )),
            Some(b) => Ok(b),
        }
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        Self::LATEST
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}
