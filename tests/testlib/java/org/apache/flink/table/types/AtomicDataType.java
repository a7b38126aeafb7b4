package org.apache.flink.table.types;
public final class AtomicDataType extends DataType { private static final long serialVersionUID = 1L;
  public AtomicDataType(org.apache.flink.table.types.logical.LogicalType t, Class<?> c) { super(t, c); } }
