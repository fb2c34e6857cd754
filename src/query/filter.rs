//! [`QueryFilter`]: which polygons a query may visit, and what each area costs.

use crate::ffi::detour::RawFilter;
use crate::{area, flags};

/// Which polygons a query may visit, and what each area costs (`dtQueryFilter`).
///
/// The default is RecastDemo's tester filter: every flag but [`flags::DISABLED`], costs ground 1,
/// water 10, road 1, door 1, grass 2, jump 1.5 (others 1).
///
/// ```
/// use navkit::query::QueryFilter;
/// let f = QueryFilter::default().with_area_cost(navkit::area::WATER, 100.0);
/// assert_eq!(f.area_cost(navkit::area::WATER), 100.0);
/// assert_eq!(f.include_flags(), 0xffff ^ navkit::flags::DISABLED);
/// ```
#[derive(Clone)]
pub struct QueryFilter {
    pub(super) raw: RawFilter,
}

impl Default for QueryFilter {
    fn default() -> Self {
        let mut f = QueryFilter::with_flags(flags::ALL ^ flags::DISABLED, 0);
        for (a, c) in [
            (area::GROUND, 1.0),
            (area::WATER, 10.0),
            (area::ROAD, 1.0),
            (area::DOOR, 1.0),
            (area::GRASS, 2.0),
            (area::JUMP, 1.5),
        ] {
            f.raw.0.m_areaCost[a as usize] = c;
        }
        f
    }
}

impl std::fmt::Debug for QueryFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("include", &format_args!("{:#x}", self.include_flags()))
            .field("exclude", &format_args!("{:#x}", self.exclude_flags()))
            .field("costs", &&self.raw.0.m_areaCost[..6])
            .finish()
    }
}

impl QueryFilter {
    /// Detour's own default filter with the given flags: every area costs 1.
    pub fn with_flags(include: u16, exclude: u16) -> Self {
        QueryFilter {
            raw: RawFilter::new(include, exclude, &[1.0; 64]),
        }
    }
    /// Flags a polygon must have one of to be visited.
    pub fn include_flags(&self) -> u16 {
        self.raw.0.m_includeFlags
    }
    /// Flags that exclude a polygon.
    pub fn exclude_flags(&self) -> u16 {
        self.raw.0.m_excludeFlags
    }
    /// Sets the include flags.
    pub fn set_include_flags(&mut self, f: u16) {
        self.raw.0.m_includeFlags = f;
    }
    /// Sets the exclude flags.
    pub fn set_exclude_flags(&mut self, f: u16) {
        self.raw.0.m_excludeFlags = f;
    }
    /// The traversal cost multiplier of area `a` (0..=63; others read as 0).
    pub fn area_cost(&self, a: u8) -> f32 {
        self.raw
            .0
            .m_areaCost
            .get(a as usize)
            .copied()
            .unwrap_or(0.0)
    }
    /// Sets the cost of area `a`. Areas above 63 and non-finite or negative costs are ignored.
    pub fn set_area_cost(&mut self, a: u8, cost: f32) {
        if cost.is_finite() && cost >= 0.0 {
            if let Some(c) = self.raw.0.m_areaCost.get_mut(a as usize) {
                *c = cost;
            }
        }
    }
    /// Builder form of [`QueryFilter::set_area_cost`].
    pub fn with_area_cost(mut self, a: u8, cost: f32) -> Self {
        self.set_area_cost(a, cost);
        self
    }
    /// Builder form of the include/exclude setters.
    pub fn with_include_exclude(mut self, include: u16, exclude: u16) -> Self {
        self.set_include_flags(include);
        self.set_exclude_flags(exclude);
        self
    }
}
