#!/usr/bin/env bash
# Renders the landing page's hero video with nothing but ffmpeg's lavfi filters:
# a vase printed layer by layer in orange filament on a slowly turning grid bed,
# under a print head riding its gantry. Everything is procedural, so the video can be
# rebuilt (and restyled) from this file alone.
#
# Output (kept small because it is committed):
#   apps/web/public/media/hero.mp4         H.264, yuv420p, 1280x720, +faststart
#   apps/web/public/media/hero.webm        VP9 fallback
#   apps/web/public/media/hero-poster.jpg  a frame of the finished print, shown while loading
#
# Usage: scripts/make-hero-video.sh            (needs ffmpeg with libx264 and libvpx)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="$ROOT/apps/web/public/media"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT_DIR"

FF=(ffmpeg -hide_banner -loglevel error -y)
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf

# ---- Timeline and scene geometry -------------------------------------------------
LOOP=7        # seconds; the vase fades out at the end so the loop restarts on an empty bed
PRINT=5.2     # seconds the print takes
FPS=24
VASE_H=380    # vase height in scene units (≈ pixels)
ELEV_S=0.33   # sin of the camera's elevation: how flat circles look (minor/major axis)
ELEV_C=0.944  # cos of the same angle: how tall heights look
FLOOR=8       # the solid bottom of the vase, before the walls go up
LAYER=3.8     # one visible layer line, in scene units
# The bed turns a quarter turn per loop; the grid and the vase's 8 ribs repeat after that.
SPIN="(PI/2/$LOOP)"

# The vase canvas: the base centre sits at (CX, BASE_Y) inside it.
CANVAS_W=440
CANVAS_H=520
CX=220
BASE_Y=470
# Where the base centre lands in the 1280x720 frame.
SCENE_X=640
SCENE_Y=548

# Radius of the vase at height h: a belly low down, a narrow neck and a flared lip.
radius() {
  local u="clip(($1)/$VASE_H,0,1)"
  echo "(52+58*exp(-pow(($u-0.32)/0.28,2))+26*exp(-pow(($u-1)/0.12,2)))"
}

# Height printed so far at time t (the variable name differs between filters: T or t).
printed() { echo "($VASE_H*clip($1/$PRINT,0,1))"; }

# ---- Per-pixel vase model, shared by the brightness and the alpha expressions -----
# Registers: 0 x, 1 height above the base on screen, 2 printed height, 3/4 front wall
# height/radius, 5/6 back wall height/radius, 7 top of the solid part (floor or first layers).
solve_front="st(3,(ld(1)+$ELEV_S*sqrt(max(0,pow($(radius 'ld(3)'),2)-ld(0)*ld(0))))/$ELEV_C)"
solve_back="st(5,(ld(1)-$ELEV_S*sqrt(max(0,pow($(radius 'ld(5)'),2)-ld(0)*ld(0))))/$ELEV_C)"
MODEL="st(0,X-$CX);st(1,$BASE_Y-Y);st(2,$(printed T));\
st(3,ld(1)/$ELEV_C);$solve_front;$solve_front;$solve_front;st(4,$(radius 'ld(3)'));\
st(5,ld(1)/$ELEV_C);$solve_back;$solve_back;$solve_back;st(6,$(radius 'ld(5)'));\
st(7,min(ld(2),$FLOOR))"
FRONT="(gte(ld(3),0)*lte(ld(3),ld(2))*lt(abs(ld(0)),ld(4)))"
BACK="(gte(ld(5),ld(7))*lte(ld(5),ld(2))*lt(abs(ld(0)),ld(6)))"
TOP_R="$(radius 'ld(7)')"
FLOOR_HIT="(gt(ld(2),0)*lt(pow(ld(0)/$TOP_R,2)+pow((ld(1)-ld(7)*$ELEV_C)/($ELEV_S*$TOP_R),2),1))"

# Fresh filament glows: the last layers are hot while printing and cool once it is done.
HOT_FADE="clip(($PRINT+0.6-T)/0.6,0,1)"
hot() { echo "(exp(-(ld(2)-($1))/7)*$HOT_FADE)"; }
lines() { echo "(0.8+0.2*cos(2*PI*($1)/$LAYER))"; }
# Where the nozzle touches the rim, for a bright contact spot.
NOZZLE_TURNS=1.15 # revolutions per second around the rim
PSI="(2*PI*$NOZZLE_TURNS*T)"
TIP_GLOW="(0.9*exp(-(pow(ld(0)-$(radius 'ld(2)')*sin($PSI),2)+pow(ld(1)-ld(2)*$ELEV_C+$ELEV_S*$(radius 'ld(2)')*cos($PSI),2))/45)*lt(T,$PRINT))"

# Front wall: twisted ribs (the shading angle wobbles with the surface angle and height),
# key light from the left, a tight highlight, layer lines.
PHI="asin(clip(ld(0)/ld(4),-1,1))"
PHI_E="($PHI+0.3*sin(8*($PHI+$SPIN*T+0.011*ld(3))))"
FRONT_L="(0.05+0.42*max(0,cos($PHI_E+0.55))*$(lines 'ld(3)')+0.32*pow(max(0,cos($PHI_E+0.3)),24)+0.55*$(hot 'ld(3)')+$TIP_GLOW)"
# Inside of the back wall: shaded, darker the deeper it is.
PHI_B="asin(clip(ld(0)/ld(6),-1,1))"
BACK_L="(0.04+0.2*(0.5+0.5*cos($PHI_B-0.6))*$(lines 'ld(5)')*exp(-(ld(2)-ld(5))/220)+0.55*$(hot 'ld(5)')+$TIP_GLOW)"
FLOOR_L="(0.05+0.6*$(hot 'ld(7)'))"

LUM="$MODEL;255*clip(if($FRONT,$FRONT_L,if($BACK,$BACK_L,if($FLOOR_HIT,$FLOOR_L,0))),0,1)"
# Walls are opaque (with a soft silhouette edge); elsewhere a contact shadow under the print.
BASE_R="$(radius 0)"
SHADOW="(0.6*clip(1.3-pow(ld(0)/($BASE_R*1.25),2)-pow(ld(1)/($ELEV_S*$BASE_R*1.25),2),0,1)*clip(ld(2)/30,0,1))"
ALPHA="$MODEL;255*clip(($LOOP-T)/0.6,0,1)*if($FRONT+$BACK+$FLOOR_HIT,1,$SHADOW)"

# Brightness -> filament colour: near-black, orange (#f97316), peach, then white-hot.
RAMP_R="if(lt(val,115),6+243*val/115,if(lt(val,191),249+6*(val-115)/76,255))"
RAMP_G="if(lt(val,115),4+111*val/115,if(lt(val,191),115+75*(val-115)/76,190+55*(val-191)/64))"
RAMP_B="if(lt(val,115),4+18*val/115,if(lt(val,191),22+98*(val-115)/76,120+105*(val-191)/64))"

# ---- Static pieces ----------------------------------------------------------------
# Background: deep slate with a soft light pool behind the printer.
"${FF[@]}" -f lavfi -i "color=black:s=1280x720:d=1,format=rgb24" -vf "geq=\
r='10+22*exp(-(pow((X-640)/520,2)+pow((Y-380)/330,2)))':\
g='15+27*exp(-(pow((X-640)/520,2)+pow((Y-380)/330,2)))':\
b='30+38*exp(-(pow((X-640)/520,2)+pow((Y-380)/330,2)))'" -frames:v 1 "$WORK/background.png"

# Bed: a round plate with a fine grid and an orange rim, seen from above (squashed later).
BED_D="hypot(X-500,Y-500)"
GRID="max(clip(1.6-abs(mod(X+25,50)-25),0,1),clip(1.6-abs(mod(Y+25,50)-25),0,1))"
RIM="clip(1-abs($BED_D-474)/4,0,1)"
"${FF[@]}" -f lavfi -i "color=black@0:s=1000x1000:d=1,format=rgba" -vf "geq=\
r='20+36*$GRID+210*$RIM':g='27+44*$GRID+88*$RIM':b='40+58*$GRID+10*$RIM':\
a='255*clip(481-$BED_D,0,1)'" -frames:v 1 "$WORK/bed.png"

# Print head: heatsink fins, a heater block with a warm status light, a brass nozzle.
# The nozzle tip is the bottom centre of this 120x150 image.
NOZZLE_FINS="lt(Y,62)*gt(X,26)*lt(X,94)*lt(mod(Y,9),6)"
NOZZLE_BLOCK="gte(Y,62)*lt(Y,110)*gt(X,18)*lt(X,102)"
NOZZLE_CONE="gte(Y,110)*lt(abs(X-60),22-(Y-110)*0.5)"
NOZZLE_LED="lt(hypot(X-86,Y-86),5)"
"${FF[@]}" -f lavfi -i "color=black@0:s=120x150:d=1,format=rgba" -vf "geq=\
r='if($NOZZLE_LED,255,if($NOZZLE_CONE,200-(Y-110)*1.5,if($NOZZLE_BLOCK,70+30*lt(X,40),if($NOZZLE_FINS,96,0))))':\
g='if($NOZZLE_LED,140,if($NOZZLE_CONE,150-(Y-110)*1.5,if($NOZZLE_BLOCK,78+30*lt(X,40),if($NOZZLE_FINS,106,0))))':\
b='if($NOZZLE_LED,40,if($NOZZLE_CONE,70-(Y-110),if($NOZZLE_BLOCK,92+30*lt(X,40),if($NOZZLE_FINS,122,0))))':\
a='255*gt($NOZZLE_LED+$NOZZLE_CONE+$NOZZLE_BLOCK+$NOZZLE_FINS,0)'" -frames:v 1 "$WORK/nozzle.png"

# Gantry: a brushed rail across the frame that the print head rides on.
"${FF[@]}" -f lavfi -i "color=black:s=1280x20:d=1,format=rgb24" -vf "geq=\
r='40+34*sin(PI*Y/20)':g='47+38*sin(PI*Y/20)':b='60+44*sin(PI*Y/20)'" -frames:v 1 "$WORK/gantry.png"

# ---- Animation --------------------------------------------------------------------
# The print head follows the rim while printing, then lifts out of the frame.
TOP_NOW="$(printed t)"
R_NOW="$(radius "$TOP_NOW")"
TIP_X="($SCENE_X+$R_NOW*sin(2*PI*$NOZZLE_TURNS*t))"
TIP_Y="($SCENE_Y-$TOP_NOW*$ELEV_C+$ELEV_S*$R_NOW*cos(2*PI*$NOZZLE_TURNS*t)-pow(max(0,t-$PRINT)*3.2,2)*60)"
HUD_LAYER="%{eif\:min(100,floor(t/$PRINT*100))\:d}"

cat >"$WORK/graph.txt" <<EOF
[0:v]rotate=a='$SPIN*t':c=none,scale=1000:330,format=rgba[bed];
color=black:s=${CANVAS_W}x${CANVAS_H}:r=$FPS,format=gray,geq=lum='$LUM',format=rgb24,
  lutrgb=r='$RAMP_R':g='$RAMP_G':b='$RAMP_B'[vase_rgb];
color=black:s=${CANVAS_W}x${CANVAS_H}:r=$FPS,format=gray,geq=lum='$ALPHA'[vase_alpha];
[vase_rgb][vase_alpha]alphamerge[vase];
[1:v][bed]overlay=x=$((SCENE_X - 500)):y=$((SCENE_Y - 165)):shortest=1[s1];
[s1][vase]overlay=x=$((SCENE_X - CX)):y=$((SCENE_Y - BASE_Y)):shortest=1[s2];
[s2][2:v]overlay=x=0:y='$TIP_Y-132'[s3];
[s3][3:v]overlay=x='$TIP_X-60':y='$TIP_Y-150',
  drawtext=fontfile=$FONT:fontsize=18:fontcolor=0x94a3b8:x=40:y=36:text='LAYER $HUD_LAYER / 100',
  drawtext=fontfile=$FONT:fontsize=18:fontcolor=0xf97316:x=40:y=62:text='PLA  0.2 mm  215°C',
  trim=duration=$LOOP,format=yuv420p[out]
EOF

still() { echo -loop 1 -framerate "$FPS" -t "$LOOP" -i "$WORK/$1.png"; }
# shellcheck disable=SC2046 # still() prints several arguments on purpose
"${FF[@]}" $(still bed) $(still background) $(still gantry) $(still nozzle) -filter_complex_script "$WORK/graph.txt" -map '[out]' -r "$FPS" \
  -c:v libx264 -preset slow -crf 26 -tune animation -pix_fmt yuv420p -movflags +faststart -an \
  "$WORK/hero.mp4"
cp "$WORK/hero.mp4" "$OUT_DIR/hero.mp4"

"${FF[@]}" -i "$OUT_DIR/hero.mp4" -c:v libvpx-vp9 -b:v 0 -crf 40 -row-mt 1 -deadline good -cpu-used 4 -an \
  "$OUT_DIR/hero.webm"

# Poster: the finished vase, just before the print head lifts away.
"${FF[@]}" -ss "$PRINT" -i "$OUT_DIR/hero.mp4" -frames:v 1 -q:v 4 "$OUT_DIR/hero-poster.jpg"

ls -l "$OUT_DIR"
