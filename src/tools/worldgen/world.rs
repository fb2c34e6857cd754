//! The world under construction: plots, pads, bowls, crags, the terrain under them, and the
//! clutter scattered between them.

use super::*;

/// A flat pad at height `h` over `rect`.
pub(super) struct Pad {
    pub(super) rect: Rect,
    pub(super) h: f64,
}

/// A pond's bowl.
pub(super) struct Bowl {
    pub(super) cx: f64,
    pub(super) cz: f64,
    pub(super) r: f64,
    pub(super) depth: f64,
}

/// A crag: a cone (`half_len` 0) or a ridge along x (`along_x`) or z, of slope `k`, reaching the
/// hills `r` from its summit (line).
pub(super) struct Crag {
    pub(super) cx: f64,
    pub(super) cz: f64,
    pub(super) half_len: f64,
    pub(super) along_x: bool,
    pub(super) r: f64,
    pub(super) k: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PlotKind {
    Building,
    BuildingStairs,
    BuildingUpper,
    Platform,
    Bridge,
    Pond,
    Crag,
    Park,
}

/// Estimated triangles of an optional feature, to keep within the budget.
pub(super) fn estimate(kind: PlotKind) -> usize {
    match kind {
        PlotKind::Building => 1400,
        PlotKind::BuildingStairs | PlotKind::BuildingUpper => 2000,
        PlotKind::Platform => 300,
        PlotKind::Bridge => 40,
        _ => 0,
    }
}

/// What a building is to have, drawn before it is placed.
struct BuildingPlan {
    /// Width (along u) and depth (along v), and their halves.
    w: f64,
    d: f64,
    hw: f64,
    hd: f64,
    roof: bool,
    /// Stairs up the back to the roof.
    roof_stairs: bool,
    /// An upper storey.
    upper: bool,
    yard: bool,
    /// A second doorway, on the left.
    side_door: bool,
    /// Steps of a staircase one storey (and a roof) up.
    n_steps: usize,
    /// How far the roof stairs reach out behind the building (0 without).
    run: f64,
    /// The frame's rotation.
    rot: u8,
}

impl BuildingPlan {
    fn draw(rng: &mut Pcg64, style: Style) -> BuildingPlan {
        let w: f64 = rng.gen_range(10.0..20.0);
        let d: f64 = rng.gen_range(8.0..14.0);
        let roof = style != Style::Random || rng.gen_bool(0.7);
        let roof_stairs = match style {
            Style::Random => roof && rng.gen_bool(0.5),
            s => s == Style::RoofStairs,
        };
        let upper = match style {
            Style::Random => !roof_stairs && rng.gen_bool(0.35),
            s => s == Style::Upper,
        };
        let yard = style != Style::Random || rng.gen_bool(0.5);
        let side_door = !upper && rng.gen_bool(0.4);
        let n_steps = ((WALL_H + ROOF_T) / STEP_RISE).ceil() as usize;
        let run = if roof_stairs { run_of(n_steps) } else { 0.0 };
        let rot = rng.gen_range(0..4u8);
        BuildingPlan {
            w,
            d,
            hw: w / 2.0,
            hd: d / 2.0,
            roof,
            roof_stairs,
            upper,
            yard,
            side_door,
            n_steps,
            run,
            rot,
        }
    }
}

/// A building's front doorway: its width, height and place along the front wall.
struct FrontDoor {
    w: f64,
    h: f64,
    u: f64,
}

impl FrontDoor {
    /// A doorway at least 1.5 m from the corners of a front wall `2 hw` wide.
    fn draw(rng: &mut Pcg64, hw: f64) -> FrontDoor {
        let w: f64 = rng.gen_range(2.0..2.4);
        let h: f64 = rng.gen_range(2.4..2.7);
        let u = rng.gen_range(-hw + 1.5 + w / 2.0..hw - 1.5 - w / 2.0);
        FrontDoor { w, h, u }
    }
}

/// The world under construction.
pub(super) struct World {
    pub(super) rng: Pcg64,
    pub(super) hills: Hills,
    pub(super) mesh: Mesh,
    pub(super) pads: Vec<Pad>,
    pub(super) bowls: Vec<Bowl>,
    pub(super) crags: Vec<Crag>,
    /// Where clutter must not go.
    pub(super) reserved: Vec<Rect>,
    pub(super) links: Vec<OffMeshConnection>,
    pub(super) volumes: Vec<ConvexVolume>,
    pub(super) features: Vec<Feature>,
    pub(super) stats: WorldStats,
}

impl World {
    /// A world with nothing built yet, drawing from `rng`.
    pub(super) fn new(rng: Pcg64, hills: Hills, stats: WorldStats) -> World {
        World {
            rng,
            hills,
            mesh: Mesh::default(),
            pads: Vec::new(),
            bowls: Vec::new(),
            crags: Vec::new(),
            reserved: Vec::new(),
            links: Vec::new(),
            volumes: Vec::new(),
            features: Vec::new(),
            stats,
        }
    }

    /// A frame of rotation `rot` for a footprint `[u0, u1, v0, v1]`, placed at random inside
    /// `plot` with `margin` around it, where the pad is flat; the pad is recorded and reserved.
    pub(super) fn place(&mut self, plot: Rect, rot: u8, fp: [f64; 4], margin: f64) -> Frame {
        let [u0, u1, v0, v1] = fp;
        let f0 = Frame {
            cx: 0.0,
            cz: 0.0,
            rot,
            y: 0.0,
        };
        let r = f0.rect(u0, u1, v0, v1).grow(margin);
        let mut pick = |lo: f64, hi: f64| {
            if hi > lo {
                self.rng.gen_range(lo..hi)
            } else {
                (lo + hi) / 2.0
            }
        };
        let cx = pick(plot.x0 - r.x0, plot.x1 - r.x1);
        let cz = pick(plot.z0 - r.z0, plot.z1 - r.z1);
        let pad = Rect {
            x0: r.x0 + cx,
            z0: r.z0 + cz,
            x1: r.x1 + cx,
            z1: r.z1 + cz,
        };
        // The hills' height at the centre, brought within PAD_FEASIBLE times the distance of
        // every earlier pad's height, so that shoulders of slope PAD_SLOPE can join them all.
        let (px, pz) = pad.centre();
        let mut h = self.hills.height(px, pz);
        for other in &self.pads {
            let d = PAD_FEASIBLE * pad.gap(&other.rect);
            h = h.clamp(other.h - d, other.h + d);
        }
        self.pads.push(Pad { rect: pad, h });
        self.reserved.push(pad);
        Frame { cx, cz, rot, y: h }
    }

    pub(super) fn link(&mut self, start: Vec3, end: Vec3) {
        if self.links.len() < MAX_OFF_MESH_CONNECTIONS {
            self.links.push(OffMeshConnection {
                start,
                end,
                radius: LINK_RADIUS,
                bidirectional: false,
                area: area::JUMP,
                flags: flags::JUMP,
                user_id: 1000 + self.links.len() as u32,
            });
        }
    }

    pub(super) fn feature(&mut self, kind: FeatureKind, point: Vec3, approach: Vec3, radius: f64) {
        self.features.push(Feature {
            kind,
            point,
            approach,
            radius: radius as f32,
        });
    }

    /// A building: walls with windows, a front doorway, maybe a side one, rooms divided by
    /// inner walls with doorways, crates; most have a roof, some stairs up to it and a jump link
    /// down from it, some an upper storey reached by inner stairs, some a yard wall with a gate
    /// in front of the door. `style` forces roof stairs or an upper storey (and a yard).
    pub(super) fn building(&mut self, plot: Rect, style: Style) {
        let b = BuildingPlan::draw(&mut self.rng, style);
        let (hw, hd) = (b.hw, b.hd);
        let margin = if b.yard { YARD_GAP + 2.5 } else { PAD_MARGIN };
        let f = self.place(plot, b.rot, [-hw, hw, -hd, hd + b.run], margin);
        let door = FrontDoor::draw(&mut self.rng, hw);
        let mut doors = self.outer_walls(&f, &b, &door);
        doors += self.inner_walls(&f, &b, &door);
        self.crates_inside(&f, &b);
        // How far in front of the door the approach is: outside the yard's gate, if any.
        let out = if b.yard { YARD_GAP + 1.5 } else { 2.5 };
        if b.yard {
            self.yard(&f, &b, door.u);
        }
        self.feature(
            FeatureKind::BuildingInterior,
            f.vec(door.u, 0.0, -hd + 2.5),
            f.vec(door.u, 0.0, -hd - out),
            hd,
        );
        let floor = WALL_H + ROOF_T;
        if b.upper {
            self.upper_storey(&f, &b, door.u, out);
        }
        let (roof_at, top) = if b.upper {
            (2.0 * WALL_H, 2.0 * WALL_H + ROOF_T)
        } else {
            (WALL_H, floor)
        };
        if b.roof {
            f.cuboid(&mut self.mesh, -hw, hw, -hd, hd, roof_at, top);
            self.stats.roofs += 1;
        }
        if b.roof_stairs {
            self.roof_stairs(&f, &b, top);
        }
        self.stats.buildings += 1;
        self.stats.doorways += doors;
    }

    /// A building's outer walls, with windows and the front doorway (and maybe one on the
    /// left); returns the doorways made. The front (-v) and back (+v) walls run the full
    /// width; the sides fit between them.
    fn outer_walls(&mut self, f: &Frame, b: &BuildingPlan, door: &FrontDoor) -> usize {
        let (m, rng) = (&mut self.mesh, &mut self.rng);
        let (hw, hd) = (b.hw, b.hd);
        let front = with_windows(-hw, hw, &[Opening::door(door.u, door.w, door.h)]);
        f.wall(m, true, -hd + WALL_T / 2.0, -hw, hw, (0.0, WALL_H), &front);
        let back = with_windows(-hw, hw, &[]);
        f.wall(m, true, hd - WALL_T / 2.0, -hw, hw, (0.0, WALL_H), &back);
        let (s0, s1) = (-hd + WALL_T, hd - WALL_T);
        let left = if b.side_door {
            let c = rng.gen_range(s0 + 2.5..s1 - 2.5);
            with_windows(s0, s1, &[Opening::door(c, 2.0, 2.5)])
        } else {
            with_windows(s0, s1, &[])
        };
        f.wall(m, false, -hw + WALL_T / 2.0, s0, s1, (0.0, WALL_H), &left);
        let right = with_windows(s0, s1, &[]);
        f.wall(m, false, hw - WALL_T / 2.0, s0, s1, (0.0, WALL_H), &right);
        1 + usize::from(b.side_door)
    }

    /// A building's rooms, about 6 m wide, divided by walls across (clear of the front door)
    /// with doorways, and in deep buildings a back room 3.5 m deep through a doorway in one of
    /// them; returns the doorways made.
    fn inner_walls(&mut self, f: &Frame, b: &BuildingPlan, door: &FrontDoor) -> usize {
        let (m, rng) = (&mut self.mesh, &mut self.rng);
        let (w, hw, hd) = (b.w, b.hw, b.hd);
        let (s0, s1) = (-hd + WALL_T, hd - WALL_T);
        let rooms = ((w / 6.0).floor() as usize).max(1);
        let room_u = |k: f64| -hw + w * k / rooms as f64;
        let back_room = b.d >= 9.5;
        let vp = hd - 3.5;
        let cross_end = if back_room { vp - WALL_T / 2.0 } else { s1 };
        let mut doors = 0;
        for k in 1..rooms {
            let uc = room_u(k as f64);
            if (uc - door.u).abs() > door.w / 2.0 + 1.2 {
                doors += 1;
                let c = rng.gen_range(s0 + 1.5..cross_end - 1.5);
                let door = [Opening::door(c, 2.0, 2.5)];
                f.wall(m, false, uc, s0, cross_end, (0.0, WALL_H), &door);
            }
        }
        if back_room {
            doors += 1;
            let c = room_u(rng.gen_range(0..rooms) as f64 + 0.5);
            let (u0, u1) = (-hw + WALL_T, hw - WALL_T);
            let door = [Opening::door(c, 2.0, 2.5)];
            f.wall(m, true, vp, u0, u1, (0.0, WALL_H), &door);
        }
        doors
    }

    /// Crates along a building's back wall.
    fn crates_inside(&mut self, f: &Frame, b: &BuildingPlan) {
        let (m, rng) = (&mut self.mesh, &mut self.rng);
        let (hw, hd) = (b.hw, b.hd);
        for _ in 0..rng.gen_range(2..6) {
            let s: f64 = rng.gen_range(0.7..1.1);
            let u = rng.gen_range(-hw + WALL_T + s..hw - WALL_T - s);
            let v = hd - WALL_T - s / 2.0 - 0.05;
            let h: f64 = rng.gen_range(0.7..1.4);
            let (u0, u1, v0, v1) = (u - s / 2.0, u + s / 2.0, v - s / 2.0, v + s / 2.0);
            f.cuboid(m, u0, u1, v0, v1, -SINK, h);
        }
    }

    /// A building's yard: a wall 1.2 m high with posts, [`YARD_GAP`] out, a gate in front of
    /// the door (at `gate_u`).
    fn yard(&mut self, f: &Frame, b: &BuildingPlan, gate_u: f64) {
        let m = &mut self.mesh;
        let (a, e0) = (-b.hw - YARD_GAP, b.hw + YARD_GAP);
        let (c, e) = (-b.hd - YARD_GAP, b.hd + b.run + YARD_GAP);
        let gate = [Opening {
            top: 9.0,
            ..Opening::door(gate_u, 2.6, 0.0)
        }];
        f.wall(m, true, c, a, e0, (0.0, YARD_WALL_H), &gate);
        f.wall(m, true, e, a, e0, (0.0, YARD_WALL_H), &[]);
        let t = WALL_T / 2.0;
        f.wall(m, false, a, c + t, e - t, (0.0, YARD_WALL_H), &[]);
        f.wall(m, false, e0, c + t, e - t, (0.0, YARD_WALL_H), &[]);
        let post = |m: &mut Mesh, u: f64, v: f64| {
            f.cuboid(m, u - 0.25, u + 0.25, v - 0.25, v + 0.25, -SINK, 1.5);
        };
        let posts = |len: f64| ((len / 2.5).round() as usize).max(1);
        let n = posts(e0 - a);
        for k in 0..=n {
            let u = a + (e0 - a) * k as f64 / n as f64;
            if (u - gate_u).abs() > 1.3 + 0.25 {
                post(m, u, c);
            }
            post(m, u, e);
        }
        let n = posts(e - c);
        for k in 1..n {
            let v = c + (e - c) * k as f64 / n as f64;
            post(m, a, v);
            post(m, e0, v);
        }
        self.stats.yards += 1;
    }

    /// A building's upper storey: stairs inside, along the side wall away from the front door
    /// (at `door_u`), rising towards +v from 1.5 m inside the front wall into a stairwell of
    /// the upper floor's slab; walls with windows. Its feature's approach is `out` in front of
    /// the door.
    fn upper_storey(&mut self, f: &Frame, b: &BuildingPlan, door_u: f64, out: f64) {
        let m = &mut self.mesh;
        let (hw, hd) = (b.hw, b.hd);
        let floor = WALL_H + ROOF_T;
        let (i0, i1, j0, j1) = (-hw + WALL_T, hw - WALL_T, -hd + WALL_T, hd - WALL_T);
        let (su0, su1) = if door_u <= 0.0 {
            (i1 - STAIR_W, i1)
        } else {
            (i0, i0 + STAIR_W)
        };
        let vs = j0 + 1.5;
        let centre = (su0 + su1) / 2.0;
        let n_steps = b.n_steps;
        let ve = vs + f.stairs(m, false, centre, vs + run_of(n_steps), -1.0, floor, n_steps);
        f.cuboid(m, i0, i1, j0, vs, WALL_H, floor);
        f.cuboid(m, i0, i1, ve, j1, WALL_H, floor);
        let (h0, h1) = if door_u <= 0.0 { (i0, su0) } else { (su1, i1) };
        f.cuboid(m, h0, h1, vs, ve, WALL_H, floor);
        let upper_walls = (WALL_H, WALL_H);
        let (s0, s1) = (-hd + WALL_T, hd - WALL_T);
        let front = with_windows(-hw, hw, &[]);
        f.wall(m, true, -hd + WALL_T / 2.0, -hw, hw, upper_walls, &front);
        f.wall(m, true, hd - WALL_T / 2.0, -hw, hw, upper_walls, &front);
        let side = with_windows(s0, s1, &[]);
        f.wall(m, false, -hw + WALL_T / 2.0, s0, s1, upper_walls, &side);
        f.wall(m, false, hw - WALL_T / 2.0, s0, s1, upper_walls, &side);
        self.feature(
            FeatureKind::UpperFloor,
            f.vec(0.0, floor, (ve + j1) / 2.0),
            f.vec(door_u, 0.0, -hd - out),
            (j1 - ve) / 2.0,
        );
        self.stats.stairs += 1;
        self.stats.upper_floors += 1;
    }

    /// Stairs up the back of a building to its roof (at `top`), and a jump link down from it.
    fn roof_stairs(&mut self, f: &Frame, b: &BuildingPlan, top: f64) {
        let (hw, hd) = (b.hw, b.hd);
        let su = self
            .rng
            .gen_range(-hw + 0.5 + STAIR_W / 2.0..hw - 0.5 - STAIR_W / 2.0);
        f.stairs(&mut self.mesh, false, su, hd, 1.0, top, b.n_steps);
        self.stats.stairs += 1;
        self.feature(
            FeatureKind::Roof,
            f.vec(0.0, top, 0.0),
            f.vec(su, 0.0, hd + b.run + 1.5),
            hd.min(hw),
        );
        self.link(
            f.vec(-hw + JUMP_IN, top, 0.0),
            f.vec(-hw - JUMP_OUT, 0.0, 0.0),
        );
    }

    /// A raised platform with stairs (front), a ramp (right) and two jump links.
    pub(super) fn platform(&mut self, plot: Rect) {
        let rng = &mut self.rng;
        let s: f64 = rng.gen_range(6.0..8.0);
        let h: f64 = rng.gen_range(3.0..4.5);
        let angle: f64 = rng.gen_range(20.0f64..28.0).to_radians();
        let ramp_w: f64 = rng.gen_range(2.6..3.0);
        let n = (h / STEP_RISE).ceil() as usize;
        let run = (n - 1) as f64 * TREAD;
        let ramp_run = h / angle.tan();
        let hs = s / 2.0;
        let rot = rng.gen_range(0..4u8);
        let f = self.place(plot, rot, [-hs, hs + ramp_run, -hs - run, hs], PAD_MARGIN);
        let rng = &mut self.rng;
        let su = rng.gen_range(-hs + 0.3 + STAIR_W / 2.0..hs - 0.3 - STAIR_W / 2.0);
        let rv = rng.gen_range(-hs + 0.2 + ramp_w / 2.0..hs - 0.2 - ramp_w / 2.0);
        let m = &mut self.mesh;
        f.cuboid(m, -hs, hs, -hs, hs, -SINK, h);
        f.stairs(m, false, su, -hs, -1.0, h, n);
        let (v0, v1) = (rv - ramp_w / 2.0, rv + ramp_w / 2.0);
        f.prism(m, hs, hs + ramp_run, v0, v1, -SINK, [h, 0.0, 0.0, h]);
        self.feature(
            FeatureKind::PlatformTop,
            f.vec(0.0, h, 0.0),
            f.vec(su, 0.0, -hs - run - 2.5),
            hs,
        );
        self.link(
            f.vec(-hs + JUMP_IN, h, 0.0),
            f.vec(-hs - JUMP_OUT, 0.0, 0.0),
        );
        self.link(f.vec(0.0, h, hs - JUMP_IN), f.vec(0.0, 0.0, hs + JUMP_OUT));
        self.stats.platforms += 1;
        self.stats.stairs += 1;
        self.stats.ramps += 1;
    }

    /// A bridge along u: a deck over flat ground, a ramp at each end, a jump link down.
    pub(super) fn bridge(&mut self, plot: Rect) {
        let rng = &mut self.rng;
        let span: f64 = rng.gen_range(6.0..7.5);
        let h: f64 = rng.gen_range(3.2..3.6);
        let width: f64 = rng.gen_range(2.8..3.4);
        let angle: f64 = rng.gen_range(24.0f64..30.0).to_radians();
        let run = h / angle.tan();
        let (hs, hw) = (span / 2.0, width / 2.0);
        let rot = rng.gen_range(0..4u8);
        let f = self.place(plot, rot, [-hs - run, hs + run, -hw, hw], PAD_MARGIN);
        let m = &mut self.mesh;
        f.cuboid(m, -hs, hs, -hw, hw, h - 0.35, h);
        f.prism(m, -hs - run, -hs, -hw, hw, -SINK, [0.0, h, h, 0.0]);
        f.prism(m, hs, hs + run, -hw, hw, -SINK, [h, 0.0, 0.0, h]);
        self.feature(
            FeatureKind::BridgeDeck,
            f.vec(0.0, h, 0.0),
            f.vec(-hs - run - 2.5, 0.0, 0.0),
            hw,
        );
        self.feature(
            FeatureKind::UnderBridge,
            f.vec(0.0, 0.0, 0.0),
            f.vec(0.0, 0.0, -hw - 3.0),
            hs,
        );
        self.link(f.vec(0.0, h, 0.0), f.vec(0.0, 0.0, hw + JUMP_OUT));
        self.stats.bridges += 1;
        self.stats.ramps += 2;
    }

    /// A pond: a bowl in a pad, its floor marked water by a convex volume of 6 to 12 points.
    pub(super) fn pond(&mut self, plot: Rect) {
        let r: f64 = self.rng.gen_range(9.0..12.0);
        let depth: f64 = self.rng.gen_range(1.5..2.2);
        let f = self.place(plot, 0, [-r, r, -r, r], PAD_MARGIN);
        self.bowls.push(Bowl {
            cx: f.cx,
            cz: f.cz,
            r,
            depth,
        });
        // The volume's outline is where the bowl is a quarter of its depth deep.
        let rw = r * 2.0 / 3.0;
        let surface = -depth / 4.0;
        let n = self.rng.gen_range(6..=12usize);
        let phase = self.rng.gen_range(0.0..TAU);
        let verts = (0..n)
            .map(|i| {
                let a = phase + TAU * i as f64 / n as f64;
                f.vec(rw * a.cos(), surface, rw * a.sin())
            })
            .collect();
        self.volumes.push(ConvexVolume {
            verts,
            hmin: mm(f.y - depth - 0.5),
            hmax: mm(f.y + surface + 0.5),
            area: area::WATER,
        });
        self.feature(
            FeatureKind::Water,
            f.vec(0.0, -depth, 0.0),
            f.vec(0.0, 0.0, -r - 1.5),
            rw,
        );
        self.stats.water_volumes += 1;
    }

    /// A crag (a steep cone or ridge) near the plot's centre; its feature is added with the
    /// terrain, which snaps it to the grid.
    pub(super) fn crag(&mut self, plot: Rect) {
        let rng = &mut self.rng;
        let r: f64 = rng.gen_range(5.0..8.0);
        let k: f64 = rng.gen_range(1.5..2.2);
        let half_len = if rng.gen_bool(0.4) {
            rng.gen_range(1.5..4.0)
        } else {
            0.0
        };
        let along_x = rng.gen_bool(0.5);
        let reach = r + half_len + 2.0;
        let (pcx, pcz) = plot.centre();
        let slack = ((plot.x1 - plot.x0) / 2.0 - reach - 4.0).max(0.0);
        let cx = pcx + rng.gen_range(-slack..=slack);
        let cz = pcz + rng.gen_range(-slack..=slack);
        let (ex, ez) = if along_x {
            (half_len, 0.0)
        } else {
            (0.0, half_len)
        };
        self.reserved.push(Rect {
            x0: cx - ex - r - 2.0,
            z0: cz - ez - r - 2.0,
            x1: cx + ex + r + 2.0,
            z1: cz + ez + r + 2.0,
        });
        self.crags.push(Crag {
            cx,
            cz,
            half_len,
            along_x,
            r,
            k,
        });
        self.stats.steep_patches += 1;
    }
}

/// The terrain: `(n + 1)^2` heights on a grid of spacing `cell` from (`x0`, `x0`).
pub(super) struct Terrain {
    pub(super) n: usize,
    pub(super) cell: f64,
    pub(super) x0: f64,
    pub(super) h: Vec<f64>,
}

impl Terrain {
    /// The `hills` on an `n` x `n` grid over the square of `side` centred on the origin.
    pub(super) fn hills(n: usize, side: f64, hills: &Hills) -> Terrain {
        let mut terrain = Terrain {
            n,
            cell: side / n as f64,
            x0: -(side / 2.0),
            h: Vec::with_capacity((n + 1) * (n + 1)),
        };
        for j in 0..=n {
            let z = terrain.pos(j);
            for i in 0..=n {
                let h = hills.height(terrain.pos(i), z);
                terrain.h.push(h);
            }
        }
        terrain
    }

    pub(super) fn idx(&self, i: usize, j: usize) -> usize {
        j * (self.n + 1) + i
    }

    /// Grid index range (inclusive) of the coordinates `lo..=hi`.
    pub(super) fn range(&self, lo: f64, hi: f64) -> std::ops::RangeInclusive<usize> {
        let a = ((lo - self.x0) / self.cell).floor().max(0.0) as usize;
        let b = (((hi - self.x0) / self.cell).ceil().max(0.0) as usize).min(self.n);
        a.min(self.n)..=b
    }

    pub(super) fn pos(&self, i: usize) -> f64 {
        self.x0 + i as f64 * self.cell
    }

    /// Applies `f(x, z, h) -> h` to the heights inside `rect`.
    pub(super) fn apply(&mut self, rect: Rect, mut f: impl FnMut(f64, f64, f64) -> f64) {
        for j in self.range(rect.z0, rect.z1) {
            let z = self.pos(j);
            for i in self.range(rect.x0, rect.x1) {
                let x = self.pos(i);
                let k = self.idx(i, j);
                self.h[k] = f(x, z, self.h[k]);
            }
        }
    }

    /// The height at (`x`, `z`), bilinear between the grid points.
    pub(super) fn height(&self, x: f64, z: f64) -> f64 {
        let fx = ((x - self.x0) / self.cell).clamp(0.0, self.n as f64 - 1e-9);
        let fz = ((z - self.x0) / self.cell).clamp(0.0, self.n as f64 - 1e-9);
        let (i, j) = (fx as usize, fz as usize);
        let (tx, tz) = (fx - i as f64, fz - j as f64);
        let h = |i, j| self.h[self.idx(i, j)];
        let a = h(i, j) * (1.0 - tx) + h(i + 1, j) * tx;
        let b = h(i, j + 1) * (1.0 - tx) + h(i + 1, j + 1) * tx;
        a * (1.0 - tz) + b * tz
    }

    pub(super) fn snap(&self, x: f64) -> f64 {
        self.pos(
            ((x - self.x0) / self.cell)
                .round()
                .clamp(0.0, self.n as f64) as usize,
        )
    }
}

/// Scatters trees (38 triangles), rocks (12) and crate stacks (12 a crate) outside the reserved
/// areas until they have used `budget` triangles (or there is no room left).
pub(super) fn scatter(world: &mut World, terrain: &Terrain, budget: usize, side: f64) {
    let start = world.mesh.tri_count();
    let half = side / 2.0 - 1.5;
    // The reserved rectangles by plot-sized bucket, for quick rejection.
    let bucket = PLOT;
    let nb = (side / bucket).ceil() as usize + 1;
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); nb * nb];
    let cell_of = |v: f64| (((v + side / 2.0) / bucket).floor().max(0.0) as usize).min(nb - 1);
    for (k, r) in world.reserved.iter().enumerate() {
        let r = r.grow(2.0);
        for j in cell_of(r.z0)..=cell_of(r.z1) {
            for i in cell_of(r.x0)..=cell_of(r.x1) {
                buckets[j * nb + i].push(k);
            }
        }
    }
    let mut misses = 0;
    loop {
        let left = budget.saturating_sub(world.mesh.tri_count() - start);
        if left < 12 || misses > 1000 {
            break;
        }
        let x = world.rng.gen_range(-half..half);
        let z = world.rng.gen_range(-half..half);
        let blocked = buckets[cell_of(z) * nb + cell_of(x)]
            .iter()
            .any(|&k| world.reserved[k].grow(2.0).contains(x, z));
        if blocked {
            misses += 1;
            continue;
        }
        misses = 0;
        let ground = terrain.height(x, z) - 0.6;
        let roll: f64 = world.rng.r#gen();
        if left >= 38 && roll < 0.55 {
            tree(&mut world.mesh, &mut world.rng, x, ground, z);
        } else if roll < 0.8 {
            rock(&mut world.mesh, &mut world.rng, x, ground, z);
        } else {
            let n = world.rng.gen_range(1..=3usize).min(left / 12);
            crates(&mut world.mesh, &mut world.rng, x, ground, z, n);
        }
        world.stats.clutter += 1;
    }
}

/// A tree: an octagonal trunk (sides and top, 22 triangles) and a steep double cone canopy
/// (16), its underside at least 2.3 m above the ground.
pub(super) fn tree(m: &mut Mesh, rng: &mut Pcg64, x: f64, y: f64, z: f64) {
    let rt: f64 = rng.gen_range(0.2..0.35);
    let ground = y + 0.6;
    let hb = ground + rng.gen_range(2.3..3.0);
    let rc: f64 = rng.gen_range(1.2..2.0);
    let ring_y = hb + 0.8;
    let tip = ring_y + rc * rng.gen_range(1.6..2.2);
    let phase = rng.gen_range(0.0..TAU);
    let ring = |r: f64, y: f64| -> Vec<[f64; 3]> {
        (0..8)
            .map(|k| {
                let a = phase + TAU * k as f64 / 8.0;
                [x + r * a.cos(), y, z + r * a.sin()]
            })
            .collect()
    };
    // Trunk.
    let (bot, top) = (ring(rt, y), ring(rt, ring_y));
    let inside = [x, (y + ring_y) / 2.0, z];
    let b: Vec<i32> = bot.iter().map(|p| m.vert(*p)).collect();
    let t: Vec<i32> = top.iter().map(|p| m.vert(*p)).collect();
    for k in 0..8 {
        let l = (k + 1) % 8;
        m.face(
            &[b[k], b[l], t[l], t[k]],
            &[bot[k], bot[l], top[l], top[k]],
            inside,
        );
    }
    m.face(&t, &top, inside);
    // Canopy.
    let cring = ring(rc, ring_y);
    let inside = [x, ring_y, z];
    let c: Vec<i32> = cring.iter().map(|p| m.vert(*p)).collect();
    let (up, down) = ([x, tip, z], [x, hb, z]);
    let (iu, id) = (m.vert(up), m.vert(down));
    for k in 0..8 {
        let l = (k + 1) % 8;
        m.face(&[c[k], c[l], iu], &[cring[k], cring[l], up], inside);
        m.face(&[c[k], c[l], id], &[cring[k], cring[l], down], inside);
    }
}

/// A rock: a skewed, turned box 0.5–1.3 m high.
pub(super) fn rock(m: &mut Mesh, rng: &mut Pcg64, x: f64, y: f64, z: f64) {
    let (sx, sz): (f64, f64) = (rng.gen_range(0.6..1.6), rng.gen_range(0.6..1.6));
    let h = 0.6 + rng.gen_range(0.5..1.3);
    let a: f64 = rng.gen_range(0.0..TAU);
    let (c, s) = (a.cos(), a.sin());
    let corner = |u: f64, v: f64, y: f64| [x + u * c - v * s, y, z + u * s + v * c];
    let uv = [(-sx, -sz), (sx, -sz), (sx, sz), (-sx, sz)];
    let bottom = uv.map(|(u, v)| corner(u, v, y));
    let mut top = bottom;
    for (k, p) in top.iter_mut().enumerate() {
        let (u, v) = uv[k];
        let j = 0.7 + 0.15 * rng.r#gen::<f64>();
        *p = corner(u * j, v * j, y + h - 0.2 * rng.r#gen::<f64>());
    }
    m.solid(bottom, top);
}

/// A stack of `n` crates, each smaller than the one below.
pub(super) fn crates(m: &mut Mesh, rng: &mut Pcg64, x: f64, y: f64, z: f64, n: usize) {
    let mut s: f64 = rng.gen_range(0.8..1.3);
    let mut y0 = y;
    let mut y1 = y + 0.6 + s;
    for _ in 0..n {
        let lo = [x - s / 2.0, y0, z - s / 2.0];
        let hi = [x + s / 2.0, y1, z + s / 2.0];
        let bottom = [
            [lo[0], lo[1], lo[2]],
            [hi[0], lo[1], lo[2]],
            [hi[0], lo[1], hi[2]],
            [lo[0], lo[1], hi[2]],
        ];
        let top = bottom.map(|p| [p[0], hi[1], p[2]]);
        m.solid(bottom, top);
        y0 = y1;
        s *= rng.gen_range(0.6..0.9);
        y1 = y0 + s;
    }
}
