//! [`Aabb`]: an axis-aligned box in world units, the one type for bounds across navkit.

use glam::Vec3;

/// An axis-aligned bounding box: `min` is the corner with the smallest coordinates, `max` the
/// one with the largest (y is up, as in Recast).
///
/// ```
/// use navkit::Aabb;
/// use glam::Vec3;
/// let b = Aabb::new(Vec3::ZERO, Vec3::new(4.0, 2.0, 6.0));
/// assert_eq!(b.size(), Vec3::new(4.0, 2.0, 6.0));
/// assert!(b.contains(Vec3::new(1.0, 1.0, 1.0)));
/// let (min, max) = b.into();          // as a (min, max) pair
/// assert_eq!((min, max), (b.min, b.max));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Aabb {
    /// The corner with the smallest coordinates.
    pub min: Vec3,
    /// The corner with the largest coordinates.
    pub max: Vec3,
}

impl Aabb {
    /// The box from `min` to `max` (not reordered: see [`Aabb::is_valid`]).
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Aabb { min, max }
    }

    /// The smallest box holding every point, or `None` for no points.
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Option<Self> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(Aabb::new(first, first), |b, p| {
            Aabb::new(b.min.min(p), b.max.max(p))
        }))
    }

    /// Finite corners with `min <= max` on every axis.
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min.cmple(self.max).all()
    }

    /// `max - min`.
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// The centre point.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Whether `p` lies inside or on the border.
    pub fn contains(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// Whether the two boxes overlap (touching counts).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb::new(self.min.min(other.min), self.max.max(other.max))
    }
}

impl From<Aabb> for (Vec3, Vec3) {
    fn from(b: Aabb) -> Self {
        (b.min, b.max)
    }
}

impl From<(Vec3, Vec3)> for Aabb {
    fn from((min, max): (Vec3, Vec3)) -> Self {
        Aabb { min, max }
    }
}

impl std::fmt::Display for Aabb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} .. {}", self.min, self.max)
    }
}
