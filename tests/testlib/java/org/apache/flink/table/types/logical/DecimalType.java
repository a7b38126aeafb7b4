package org.apache.flink.table.types.logical;
public final class DecimalType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final int precision;
  private final int scale;
  public DecimalType(boolean nullable, int precision, int scale) { super(nullable, LogicalTypeRoot.DECIMAL); this.precision = precision; this.scale = scale; }
}
