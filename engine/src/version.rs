//! The Kubernetes release a request targets (1.25 to 1.36). Later issues make every
//! version-dependent behaviour switch on it; today it is parsed and carried.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

impl KubeVersion {
    pub const MIN: KubeVersion = KubeVersion { minor: 25 };
    pub const LATEST: KubeVersion = KubeVersion { minor: 36 };

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
